import assert from 'node:assert/strict';
import type { OrderDraft } from '../../src/orders/place-order.ts';
import type { Site } from './test-app.ts';

export const ORDERS = '/1.0/commerce/orders';

let counter = 0;
export const orderKey = () => `order-${++counter}-${Math.random().toString(36).slice(2, 10)}`;

const usd = (value: string) => ({ currency: 'USD', value });

/** A line of a variant, at a unit price. */
export function line(variantId: string, quantity = 1, unitPrice = '10.00') {
  return { lineItemType: 'PHYSICAL_PRODUCT', variantId, quantity, unitPricePaid: usd(unitPrice) };
}

export function customLine(title: string, quantity = 1, unitPrice = '5.00') {
  return { lineItemType: 'CUSTOM', title, quantity, unitPricePaid: usd(unitPrice) };
}

/** A valid import body of these lines, its subtotal and grand total their sum. */
export function importBody(
  lines: ReturnType<typeof line | typeof customLine>[],
  overrides: Record<string, unknown> = {},
) {
  const cents = lines.reduce(
    (sum, l) => sum + Math.round(Number(l.unitPricePaid.value) * 100) * l.quantity,
    0,
  );
  const total = (cents / 100).toFixed(2);
  return {
    channelName: 'Etsy',
    externalOrderReference: `ETSY-${++counter}`,
    createdOn: '2026-08-16T08:14:10Z',
    priceTaxInterpretation: 'EXCLUSIVE',
    subtotal: usd(total),
    grandTotal: usd(total),
    lineItems: lines,
    fulfillments: [],
    ...overrides,
  };
}

export function importOrder(site: Site, body: object, key: string | null = orderKey()) {
  return site.call({
    method: 'POST',
    url: ORDERS,
    headers: key === null ? {} : { 'idempotency-key': key },
    payload: body,
  });
}

/** Imports an order, asserting the 201; the order as answered. */
export async function created(site: Site, body: object, key = orderKey()) {
  const res = await importOrder(site, body, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** An order of Emporium's own (as the CLI or the storefront place them), in any state. */
export function nativeDraft(now: Date, overrides: Partial<OrderDraft> = {}): OrderDraft {
  return {
    channel: 'web',
    channelName: 'Emporium',
    externalOrderReference: null,
    createdOn: null,
    placedOn: now,
    testmode: true,
    customerEmail: null,
    billingAddress: null,
    shippingAddress: null,
    lines: [
      {
        lineItemType: 'CUSTOM',
        variantId: null,
        title: 'Gift wrap',
        quantity: 1,
        unitPricePaidMinor: 500,
        customizations: null,
      },
    ],
    internalNotes: [],
    shippingLines: [],
    discountLines: [],
    formSubmission: null,
    subtotalMinor: 500,
    shippingTotalMinor: 0,
    discountTotalMinor: 0,
    taxTotalMinor: 0,
    refundedTotalMinor: 0,
    grandTotalMinor: 500,
    priceTaxInterpretation: 'EXCLUSIVE',
    paymentState: 'PAID',
    fulfillmentStatus: 'PENDING',
    fulfilledOn: null,
    fulfillments: [],
    shippingOptionName: null,
    shippingOptionServiceType: null,
    payment: null,
    deductStock: true,
    ...overrides,
  };
}

/** The order as `GET /1.0/commerce/orders/{id}` answers it. */
export async function apiOrder(site: Site, id: string) {
  const res = await site.call({ method: 'GET', url: `${ORDERS}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The order's transaction document, as `GET /1.0/commerce/transactions?orderId=` answers it. */
export async function documentOf(site: Site, orderId: string) {
  const res = await site.call({ method: 'GET', url: `/1.0/commerce/transactions?orderId=${orderId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().documents[0];
}
