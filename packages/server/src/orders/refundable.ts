import type { Db } from '../db/database.ts';
import { ValidationError } from '../shared/errors.ts';
import { decimalToMinorUnits, fromMinorUnits, type Money } from '../shared/money.ts';
import { selectOrderDocument, type DocumentRow } from '../transactions/transactions.repo.ts';
import type { OrderRow } from './order-document.ts';
import * as repo from './orders.repo.ts';
import { remainingOf, type Refundable } from './refund-amounts.ts';
import { selectRefunds, type RefundRow } from './refunds.repo.ts';

/** Whether, and how much of, an order can be refunded: the rules a refund and the owner's page share. */

export const money = (order: OrderRow, minor: number): Money =>
  fromMinorUnits(minor, order.document.grandTotal.currency);

/** `12.50 USD`, for messages. */
export const describe = (order: OrderRow) => (minor: number) => {
  const { value, currency } = money(order, minor);
  return `${value} ${currency}`;
};

/**
 * The order as a refund sees it, with its transaction document, which holds the payment; refused
 * when nothing can be refunded.
 */
export function refundable(
  order: OrderRow,
  document: DocumentRow | undefined,
  earlier: RefundRow[],
): { refundable: Refundable; document: DocumentRow } {
  const number = `#${order.order_number}`;
  if (order.payment_state === 'REFUNDED')
    throw new ValidationError(`Order ${number} is already refunded in full.`);
  // A gift card's payment and the card's (refund-split.ts): what was paid is both.
  const payments = document?.document.payments ?? [];
  if (order.payment_state !== 'PAID' || !document || payments.length === 0) {
    throw new ValidationError(
      order.payment_state === 'PAID'
        ? `Order ${number} came from another channel (${order.channel}), and the store took no payment to refund.`
        : `Order ${number} is ${order.payment_state}, not PAID: there is no payment to refund.`,
    );
  }
  const currency = order.document.grandTotal.currency;
  const minor = (m: { value: string }) => decimalToMinorUnits(m.value, currency);
  const asRefunded: Refundable = {
    currency,
    paidMinor: payments.reduce((sum, payment) => sum + minor(payment.amount), 0),
    shippingMinor: document.document.shippingLineItems.reduce((sum, s) => sum + minor(s.netAmount), 0),
    lines: order.document.lineItems.map((line, i) => ({
      id: line.id,
      productName: line.productName,
      quantity: line.quantity,
      totalMinor: minor(document.document.salesLineItems[i]!.total),
    })),
    earlier: earlier.map((r) => ({
      amountMinor: r.amount_minor,
      shippingMinor: r.shipping_minor,
      lines: r.lines,
    })),
  };
  return { refundable: asRefunded, document };
}

/** Why the refunded items cannot go back in stock, if they cannot. */
function restockRefusal(order: OrderRow): string | undefined {
  if (order.fulfillment_status === 'CANCELED') {
    return 'restock: the order was canceled, and its stock was settled then; nothing was changed.';
  }
  if (order.stock_taken === false) {
    return 'restock: this order took no stock when it was placed (imported without DEDUCT), so a refund puts none back.';
  }
  return undefined;
}

export function checkRestock(order: OrderRow): void {
  const refusal = restockRefusal(order);
  if (refusal) throw new ValidationError(refusal);
}

/** An order's refunds and what is left to refund, for its owner's page. */
export interface RefundsView {
  refunds: {
    id: string;
    amount: Money;
    refundedOn: Date;
    lines: { lineId: string; productName: string; quantity: number }[];
    shipping: Money | null;
    restocked: boolean;
  }[];
  /** What can still be refunded; null when nothing can, `why` says why. */
  left: { quantities: Map<string, number>; shipping: Money; amount: Money } | null;
  why: string | null;
  /** Whether refunded items can go back in stock. */
  restockable: boolean;
}

export async function refundsView(db: Db, websiteId: string, orderId: string): Promise<RefundsView> {
  const [order] = await repo.selectOrders(db, websiteId, [orderId]);
  if (!order) return { refunds: [], left: null, why: 'There is no such order.', restockable: false };
  const [document, rows] = await Promise.all([
    selectOrderDocument(db, websiteId, orderId),
    selectRefunds(db, websiteId, orderId),
  ]);
  const names = new Map(order.document.lineItems.map((l) => [l.id, l.productName]));
  const refunds = rows.map((r) => ({
    id: r.id,
    amount: money(order, r.amount_minor),
    refundedOn: r.refunded_on,
    lines: r.lines.map((l) => ({
      lineId: l.lineId,
      productName: names.get(l.lineId) ?? l.lineId,
      quantity: l.quantity,
    })),
    shipping: r.shipping_minor > 0 ? money(order, r.shipping_minor) : null,
    restocked: r.restocked,
  }));
  const restockable = restockRefusal(order) === undefined;
  try {
    const remaining = remainingOf(refundable(order, document, rows).refundable);
    if (remaining.amountMinor === 0) {
      return { refunds, left: null, why: 'Everything paid has been refunded.', restockable };
    }
    const left = {
      quantities: remaining.quantities,
      shipping: money(order, remaining.shippingMinor),
      amount: money(order, remaining.amountMinor),
    };
    return { refunds, left, why: null, restockable };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { refunds, left: null, why: error.message, restockable };
  }
}
