import type { RefundedLine } from '../db/commerce-schema.ts';
import { ValidationError } from '../shared/errors.ts';

/**
 * What a refund comes to, to the minor unit, from what the order's transaction document says each
 * line and the shipping cost the buyer (transactions/transaction-document.ts: a line's `total` is
 * its price after its share of the discount, with its tax), less what earlier refunds took.
 *
 * A line's items are refunded at the line's total spread over its quantity cumulatively: refunding
 * k of its n items in all comes to floor(total * k / n), and all n to the total exactly. So a
 * line refunded one item at a time adds up to what refunding it whole gives, never a cent more.
 */

/** A line of the order as the refund sees it: the order line and its document line's total. */
export interface RefundableLine {
  id: string;
  productName: string;
  quantity: number;
  totalMinor: number;
}

export interface Refundable {
  lines: RefundableLine[];
  /** The shipping the buyer paid, after its discount. */
  shippingMinor: number;
  /** What the payment took. */
  paidMinor: number;
  /** What earlier refunds gave back, in all and by line. */
  earlier: { amountMinor: number; shippingMinor: number; lines: RefundedLine[] }[];
  currency: string;
}

/** What the owner asks to refund: items of lines, the shipping, and any other amount. */
export interface RefundRequest {
  lines: { lineId: string; quantity: number }[];
  shipping: boolean;
  /** An amount on top of the lines and shipping (a goodwill refund, a price adjustment). */
  otherMinor: number;
}

export interface RefundAmounts {
  lines: RefundedLine[];
  shippingMinor: number;
  amountMinor: number;
}

/** What is left of the order to refund: items by line, shipping, and money. */
export interface Remaining {
  quantities: Map<string, number>;
  shippingMinor: number;
  amountMinor: number;
}

const cumulative = (line: RefundableLine, items: number) =>
  items >= line.quantity
    ? line.totalMinor
    : Number((BigInt(line.totalMinor) * BigInt(items)) / BigInt(line.quantity));

export function remainingOf(order: Refundable): Remaining {
  const quantities = new Map(order.lines.map((line) => [line.id, line.quantity]));
  let shippingMinor = order.shippingMinor;
  let amountMinor = order.paidMinor;
  for (const refund of order.earlier) {
    for (const line of refund.lines)
      quantities.set(line.lineId, (quantities.get(line.lineId) ?? 0) - line.quantity);
    shippingMinor -= refund.shippingMinor;
    amountMinor -= refund.amountMinor;
  }
  return { quantities, shippingMinor: Math.max(0, shippingMinor), amountMinor: Math.max(0, amountMinor) };
}

/** The refund's amounts; a request the order cannot take is refused with what is left. */
export function refundAmounts(
  order: Refundable,
  request: RefundRequest,
  describe: (minor: number) => string,
): RefundAmounts {
  const remaining = remainingOf(order);
  const lines: RefundedLine[] = [];
  for (const asked of request.lines) {
    const line = order.lines.find((l) => l.id === asked.lineId);
    if (!line) throw new ValidationError(`lines: the order has no line ${asked.lineId}`);
    if (asked.quantity === 0) continue;
    const left = remaining.quantities.get(line.id)!;
    if (!Number.isInteger(asked.quantity) || asked.quantity < 0 || asked.quantity > left) {
      throw new ValidationError(
        `${line.productName}: ${left} of its ${line.quantity} items can be refunded, not ${asked.quantity}`,
      );
    }
    const before = line.quantity - left;
    const amountMinor = cumulative(line, before + asked.quantity) - cumulative(line, before);
    lines.push({ lineId: line.id, quantity: asked.quantity, amountMinor });
  }
  if (request.shipping && remaining.shippingMinor === 0) {
    throw new ValidationError('shipping: nothing of the shipping is left to refund');
  }
  const shippingMinor = request.shipping ? remaining.shippingMinor : 0;
  const amountMinor = lines.reduce((sum, l) => sum + l.amountMinor, 0) + shippingMinor + request.otherMinor;
  if (amountMinor <= 0) {
    throw new ValidationError('Nothing to refund: choose items, the shipping or an amount.');
  }
  if (amountMinor > remaining.amountMinor) {
    throw new ValidationError(
      `A refund of ${describe(amountMinor)} is more than what is left to refund, ${describe(remaining.amountMinor)}.`,
      'REFUND_EXCEEDS_PAYMENT',
    );
  }
  return { lines, shippingMinor, amountMinor };
}

/**
 * Everything left: each line's remaining items, the remaining shipping, and the money left of the
 * payment, which is what the refund gives back (earlier refunds of other amounts may have taken
 * part of what the items cost).
 */
export function fullRefund(order: Refundable, describe: (minor: number) => string): RefundAmounts {
  const remaining = remainingOf(order);
  if (remaining.amountMinor === 0) {
    throw new ValidationError(
      `Nothing is left to refund: ${describe(order.paidMinor)} was refunded already.`,
    );
  }
  const lines: RefundedLine[] = [];
  for (const line of order.lines) {
    const left = remaining.quantities.get(line.id)!;
    if (left === 0) continue;
    const before = line.quantity - left;
    lines.push({ lineId: line.id, quantity: left, amountMinor: line.totalMinor - cumulative(line, before) });
  }
  return { lines, shippingMinor: remaining.shippingMinor, amountMinor: remaining.amountMinor };
}
