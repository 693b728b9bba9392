import { decimalToMinorUnits, fromMinorUnits, type Money } from '../shared/money.ts';
import type { Ids } from '../shared/ids.ts';
import type { AddressJson, GiftCardPayment, Payment, PlacedOrder } from '../shared/order-model.ts';
import type { PaymentT, StoredDocumentT } from './transactions.schemas.ts';

/** An order's transaction document (platform-surface 2.2.3), built from the order alone. */

const TAX_NAME = 'Sales tax';

/**
 * Splits `total` minor units over `weights` in proportion, each share rounded down and the last
 * taking what rounding left, so the shares always sum to `total` exactly. BigInt: a weight times
 * a total can pass 2^53.
 */
export function allocate(total: number, weights: number[]): number[] {
  if (weights.length === 0) return [];
  const positive = weights.map((w) => BigInt(Math.max(0, w)));
  const sum = positive.reduce((a, b) => a + b, 0n);
  const shares = positive.map((w) => (sum > 0n ? Number((BigInt(total) * w) / sum) : 0));
  shares[shares.length - 1] = total - shares.slice(0, -1).reduce((a, b) => a + b, 0);
  return shares;
}

/**
 * Each sales line's share of the merchandise discount: the lines' own (OrderLine.discountMinor,
 * what pricing put on the eligible lines) when every line has one and they add up to it; else the
 * discount spread in proportion to the lines' sales (an import, which sends only the total).
 */
function lineDiscounts(order: PlacedOrder, merchandise: number, sales: number[]): number[] {
  const own = order.lineItems.map((line) => line.discountMinor);
  const known = own.every((d): d is number => d !== undefined);
  if (known && own.reduce((a, b) => a + b, 0) === merchandise) return own;
  return allocate(merchandise, sales);
}

/** `tax` as a percent of `base` with two decimals, rounded half up ("7.00"); "0.00" without a base. */
export function taxRate(tax: number, base: number): string {
  if (base <= 0) return '0.00';
  const hundredths = (BigInt(tax) * 20000n + BigInt(base)) / (2n * BigInt(base));
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
}

/** `COUNTRY:US,STATE:NY`, from where the order ships, else where it is billed. */
function jurisdiction(order: PlacedOrder): string | null {
  const address: AddressJson | null = order.shippingAddress?.countryCode
    ? order.shippingAddress
    : order.billingAddress;
  const country = address?.countryCode?.trim().toUpperCase();
  if (!country) return null;
  const state = address?.state?.trim().toUpperCase();
  return state ? `COUNTRY:${country},STATE:${state}` : `COUNTRY:${country}`;
}

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A processing fee id like the platform's `2Jdsno3mdk`: ten letters and digits, from the low 62
 * bits of a UUID (all random in a v4), so the builder's only randomness is the injected ids.
 */
function feeId(ids: Ids): string {
  let n = BigInt(`0x${ids.uuid().replace(/-/g, '')}`);
  let id = '';
  for (let i = 0; i < 10; i++) {
    id += ALPHANUMERIC[Number(n % 62n)];
    n /= 62n;
  }
  return id;
}

/** The card's payment of `amountMinor`: the grand total, or what a gift card left of it. */
function paymentOf(amountMinor: number, paid: Payment, ids: Ids, money: (minor: number) => Money): PaymentT {
  const fee = paid.processingFeeMinor;
  return {
    id: ids.uuid(),
    amount: money(amountMinor),
    refundedAmount: money(0),
    netAmount: money(amountMinor - fee),
    creditCardType: paid.creditCardType,
    provider: paid.provider,
    refunds: [],
    // The gateway charges in the website's currency here, hence a rate of 1.
    processingFees:
      fee > 0
        ? [
            {
              id: feeId(ids),
              amount: money(fee),
              amountGatewayCurrency: money(fee),
              exchangeRate: 1,
              refundedAmount: money(0),
              refundedAmountGatewayCurrency: money(0),
              netAmount: money(fee),
              netAmountGatewayCurrency: money(fee),
              feeRefunds: [],
            },
          ]
        : [],
    giftCardId: null,
    paidOn: paid.paidOn.toISOString(),
    externalTransactionId: paid.externalTransactionId,
    externalTransactionProperties: [],
    externalCustomerId: null,
  };
}

/**
 * A gift card's payment (Emporium's choice, docs/transactions-and-profiles.md): the platform's own
 * gateway (`SQUARESPACE`) takes it, with no card type (the platform's null "when the gateway has no
 * card processing") and no processing fee; `giftCardId` names the card, and the gateway id is the
 * redemption's, `gc_test_…`.
 */
function giftCardPaymentOf(paid: GiftCardPayment, ids: Ids, money: (minor: number) => Money): PaymentT {
  return {
    id: ids.uuid(),
    amount: money(paid.amountMinor),
    refundedAmount: money(0),
    netAmount: money(paid.amountMinor),
    creditCardType: null,
    provider: 'SQUARESPACE',
    refunds: [],
    processingFees: [],
    giftCardId: paid.giftCardId,
    paidOn: paid.paidOn.toISOString(),
    externalTransactionId: `gc_test_${paid.redemptionId}`,
    externalTransactionProperties: [],
    externalCustomerId: null,
  };
}

/**
 * The stored part of an order's document (platform-surface 2.2.3), in wire order. The order's
 * discount is on the lines pricing put it on (lineDiscounts), its tax spread over the lines in
 * proportion to their net (allocate), so the lines add up to the order's totals to the minor unit.
 *
 * Tax: EXCLUSIVE prices exclude it, so a line's `total` is its net sales plus its tax and the
 * rate is the tax over the net sales. INCLUSIVE prices already contain it: `totalSales` and
 * `totalNetSales` include the tax, a line's `total` equals its net sales, and the rate is the tax
 * over the net sales without it. Either way `total` is the order's grandTotal.
 */
export function transactionDocument(order: PlacedOrder, ids: Ids): StoredDocumentT {
  // Signed: a net can go below zero (a discount above the subtotal, a fee above the payment).
  const money = (minor: number): Money => {
    const { currency, value } = fromMinorUnits(Math.abs(minor), order.currency);
    return { currency, value: minor < 0 ? `-${value}` : value };
  };
  const inclusive = order.priceTaxInterpretation === 'INCLUSIVE';
  const sales = order.lineItems.map((line) => line.unitPricePaidMinor * line.quantity);
  // The shipping lines' own discounts first; the rest of the order's is the merchandise's.
  const shippingDiscount = order.shippingLines.reduce((sum, s) => sum + (s.discountMinor ?? 0), 0);
  const discounts = lineDiscounts(order, order.discountTotalMinor - shippingDiscount, sales);
  const net = sales.map((s, i) => s - discounts[i]!);
  const taxed = order.taxTotalMinor > 0;
  const taxes = taxed ? allocate(order.taxTotalMinor, net) : net.map(() => 0);
  const netSales = order.subtotalMinor - order.discountTotalMinor + shippingDiscount;
  const rate = taxRate(order.taxTotalMinor, inclusive ? netSales - order.taxTotalMinor : netSales);
  const where = jurisdiction(order);
  // A gift card pays first, the card the rest; an import has no payment (it was paid on another
  // channel), an order a gift card paid in full no card's.
  const giftCard = order.giftCardPayment;
  const cardMinor = order.grandTotalMinor - (giftCard?.amountMinor ?? 0);
  const payments = [
    ...(giftCard ? [giftCardPaymentOf(giftCard, ids, money)] : []),
    ...(order.payment ? [paymentOf(cardMinor, order.payment, ids, money)] : []),
  ];
  const netPayment =
    (giftCard?.amountMinor ?? 0) + (order.payment ? cardMinor - order.payment.processingFeeMinor : 0);
  return {
    customerEmail: order.customerEmail,
    salesOrderId: order.id,
    voided: false,
    totalSales: money(order.subtotalMinor),
    totalNetSales: money(netSales),
    totalNetShipping: money(order.shippingTotalMinor - shippingDiscount),
    totalTaxes: money(order.taxTotalMinor),
    total: money(order.grandTotalMinor),
    totalNetPayment: money(netPayment),
    payments,
    salesLineItems: sales.map((total, i) => ({
      id: ids.uuid(),
      discountAmount: money(discounts[i]!),
      totalSales: money(total),
      totalNetSales: money(net[i]!),
      total: money(inclusive ? net[i]! : net[i]! + taxes[i]!),
      taxes: taxed ? [{ amount: money(taxes[i]!), rate, name: TAX_NAME, jurisdiction: where }] : [],
    })),
    // `description` is the deprecated twin of `name`, as on the order's discountLines.
    discounts: order.discountLines.map((d) => ({
      description: d.name,
      name: d.name,
      amount: money(d.amountMinor),
    })),
    shippingLineItems: order.shippingLines.map((s) => ({
      id: ids.uuid(),
      description: s.method,
      amount: money(s.amountMinor),
      discountAmount: money(s.discountMinor ?? 0),
      netAmount: money(s.amountMinor - (s.discountMinor ?? 0)),
      taxes: [],
    })),
    paymentGatewayError: null,
  };
}

/** A refund as the document records it under its payment (platform-surface 2.2.3, Refund). */
export interface DocumentRefund {
  id: string;
  amountMinor: number;
  refundedOn: Date;
  externalTransactionId: string;
}

/**
 * The document with a refund of one of its payments (the first unless `paymentIndex` says which:
 * an order paid by gift card and card has two, orders/refund-split.ts): the refund listed, the
 * payment's `refundedAmount` raised and its `netAmount` and the document's `totalNetPayment`
 * lowered by it. The sales totals stay: they say what was sold. The gateway keeps its processing
 * fee (Stripe returns no fee on a refund), so `feeRefunds` stays empty. Keys keep their places.
 */
export function withRefund(
  document: StoredDocumentT,
  refund: DocumentRefund,
  paymentIndex = 0,
): StoredDocumentT {
  const payment = document.payments[paymentIndex];
  if (!payment) throw new Error('a refund needs a payment');
  const currency = payment.amount.currency;
  const minor = (m: { value: string }) => decimalToMinorUnits(m.value, currency);
  const money = (value: number) => fromMinorUnits(value, currency);
  return {
    ...document,
    totalNetPayment: money(minor(document.totalNetPayment) - refund.amountMinor),
    payments: document.payments.map((other, i) =>
      i !== paymentIndex
        ? other
        : {
            ...payment,
            refundedAmount: money(minor(payment.refundedAmount) + refund.amountMinor),
            netAmount: money(minor(payment.netAmount) - refund.amountMinor),
            refunds: [
              ...payment.refunds,
              {
                id: refund.id,
                amount: money(refund.amountMinor),
                refundedOn: refund.refundedOn.toISOString(),
                externalTransactionId: refund.externalTransactionId,
              },
            ],
          },
    ),
  };
}
