import { createHash } from 'node:crypto';
import { ValidationError } from '../shared/errors.ts';
import { parseUtcTime } from '../shared/iso-time.ts';
import { toMinorUnits, type MoneyInput } from '../shared/money.ts';
import { parseEmail } from '../shared/email.ts';
import { parseAddress, parseShipment } from './order-input.ts';
import type { CreateOrderInput } from './orders.schemas.ts';
import type { DraftLine, OrderDraft } from './place-order.ts';

/**
 * The rules of `POST /1.0/commerce/orders` beyond its schema (platform-surface 2.1.3), with the
 * platform's own messages where they are known. The draft goes to placeOrder.
 */
export function parseImport(body: CreateOrderInput, currency: string): OrderDraft {
  const money = (value: MoneyInput, field: string) => toMinorUnits(value, currency, field);
  const placedOn = parseUtcTime(body.createdOn, 'createdOn');

  const lines: DraftLine[] = body.lineItems.map((line, i) => {
    const field = `lineItems[${i}]`;
    const title = line.title ?? null;
    const variantId = line.variantId ?? null;
    if (line.lineItemType === 'PHYSICAL_PRODUCT') {
      if (title !== null) throw new ValidationError('lineItems.title must be null or omitted.');
      if (!variantId) {
        throw new ValidationError(
          `${field}.variantId: is required on a PHYSICAL_PRODUCT line`,
          'MISSING_ARGUMENT',
        );
      }
    } else {
      if (!title?.trim()) {
        throw new ValidationError(`${field}.title: is required on a CUSTOM line`, 'MISSING_ARGUMENT');
      }
      if (variantId !== null)
        throw new ValidationError(`${field}.variantId: must be null or omitted on a CUSTOM line`);
    }
    if (line.nonSaleUnitPrice) money(line.nonSaleUnitPrice, `${field}.nonSaleUnitPrice`);
    return {
      lineItemType: line.lineItemType,
      variantId,
      title,
      quantity: line.quantity,
      unitPricePaidMinor: money(line.unitPricePaid, `${field}.unitPricePaid`),
      customizations: null,
    };
  });

  const linesTotal = lines.reduce((sum, line) => sum + line.unitPricePaidMinor * line.quantity, 0);
  const subtotal = body.subtotal ? money(body.subtotal, 'subtotal') : undefined;
  if (subtotal !== linesTotal) {
    throw new ValidationError('The sum of lineItems.unitPricePaid.value must equal subtotal.value');
  }

  const fulfilled = body.fulfillmentStatus === 'FULFILLED';
  if (fulfilled && !body.fulfilledOn) {
    throw new ValidationError(
      'fulfilledOn: is required when fulfillmentStatus is FULFILLED',
      'MISSING_ARGUMENT',
    );
  }
  if (!fulfilled && body.fulfilledOn) {
    throw new ValidationError('fulfilledOn: only a FULFILLED order has a fulfilledOn');
  }
  const optional = (value: MoneyInput | null | undefined, field: string) => (value ? money(value, field) : 0);

  return {
    channel: 'external',
    channelName: body.channelName,
    externalOrderReference: body.externalOrderReference,
    createdOn: body.createdOn,
    placedOn,
    testmode: false,
    customerEmail: body.customerEmail ? parseEmail(body.customerEmail, 'customerEmail') : null,
    billingAddress: parseAddress(body.billingAddress),
    shippingAddress: parseAddress(body.shippingAddress),
    lines,
    internalNotes: [],
    shippingLines: (body.shippingLines ?? []).map((s, i) => ({
      method: s.method,
      amountMinor: money(s.amount, `shippingLines[${i}].amount`),
    })),
    discountLines: (body.discountLines ?? []).map((d, i) => ({
      name: d.name ?? '',
      promoCode: d.promoCode ?? null,
      amountMinor: optional(d.amount, `discountLines[${i}].amount`),
    })),
    formSubmission: null,
    subtotalMinor: linesTotal,
    shippingTotalMinor: optional(body.shippingTotal, 'shippingTotal'),
    discountTotalMinor: optional(body.discountTotal, 'discountTotal'),
    taxTotalMinor: optional(body.taxTotal, 'taxTotal'),
    refundedTotalMinor: 0,
    grandTotalMinor: money(body.grandTotal, 'grandTotal'),
    priceTaxInterpretation: body.priceTaxInterpretation,
    paymentState: 'PAID',
    fulfillmentStatus: fulfilled ? 'FULFILLED' : 'PENDING',
    fulfilledOn: fulfilled ? parseUtcTime(body.fulfilledOn!, 'fulfilledOn') : null,
    fulfillments: body.fulfillments.map((s, i) => parseShipment(s, `fulfillments[${i}]`)),
    shippingOptionName: null,
    shippingOptionServiceType: null,
    payment: null,
    deductStock: body.inventoryBehavior === 'DEDUCT',
  };
}

/** JSON with its keys sorted at every level, so two bodies that say the same digest the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function importDigest(body: CreateOrderInput): Buffer {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest();
}
