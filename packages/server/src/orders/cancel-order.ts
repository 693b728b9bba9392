import { stampRows } from '../db/change-clock.ts';
import { lockDiscountsOfOrder, returnRedemptions } from '../discounts/discount-redemptions.repo.ts';
import { ValidationError } from '../shared/errors.ts';
import { emit } from '../webhooks/outbox.ts';
import { checkOrderId } from './orders.read.ts';
import { emailBuyer } from './order-emails.ts';
import * as repo from './orders.repo.ts';
import { recountOrders } from '../customers/profiles.repo.ts';
import type { OrderDeps } from './place-order.ts';
import { voidOrderDocument } from '../transactions/transactions.repo.ts';
import { lockForChange } from './order-lock.ts';
import { refundLocked, type RefundEffects } from './refund-order.ts';
import { selectRefunds } from './refunds.repo.ts';
import { variantQuantities, withRestock } from './restock.ts';

/**
 * Canceling an order, as the owner does from the order's page (the platform's API has no cancel
 * endpoint: platform-surface 2.1.4). Only a PENDING order can be canceled: a FULFILLED one has
 * shipped, and a CANCELED one is done. The order's fulfillmentStatus becomes CANCELED, its
 * transaction document is voided (2.2.3 `voided`: "order canceled"), both get a new modifiedOn,
 * and `order.update` with `CANCELED` is queued (platform-surface 3), the buyer's profile no
 * longer counts the order (its summary is the one analytics gives), and the discount it used gets
 * its use back (a limited or once-per-customer code can be used again), and the buyer's
 * cancellation notice is written (emails/), all in one transaction. With `refund`, everything
 * left of a paid order's payment is refunded in the same transaction (refund-order.ts); without
 * it no money moves, and the owner may refund later.
 */

export interface CancelOptions {
  /**
   * Put the quantities of the order's catalog lines back in stock (the owner's "Restock items").
   * Never done for an order whose placing took no stock (an import without DEDUCT).
   */
  restock: boolean;
  /** Refund everything left of the payment (a paid order only); no money moves without it. */
  refund?: boolean;
}

export interface Canceled {
  /** Items put back in stock, over all lines (unlimited stock and deleted variants count none). */
  restocked: number;
  /** What the cancel refunded, in minor units (0 without `refund`). */
  refundedMinor: number;
}

export async function cancelOrder(
  deps: OrderDeps,
  websiteId: string,
  orderId: string,
  options: CancelOptions,
): Promise<Canceled> {
  checkOrderId(orderId);
  let notified = 0;
  let emailed = false;
  // A refund made with the cancel: its notification and e-mail are woken for after the commit.
  let refund: RefundEffects | undefined;
  const { announce, ...canceled } = await deps.db.transaction().execute(async (trx) => {
    const order = await lockForChange(trx, websiteId, orderId);
    if (order.fulfillment_status === 'CANCELED') {
      throw new ValidationError(`order ${orderId} is already CANCELED`);
    }
    if (order.fulfillment_status === 'FULFILLED') {
      throw new ValidationError(
        `order ${orderId} is FULFILLED and cannot be canceled: its items have shipped`,
      );
    }

    // The discounts' rows before the catalog's, in the order a checkout takes them.
    await lockDiscountsOfOrder(trx, websiteId, orderId);
    const documents: string[] = [];
    // Everything is written before the stamps, which take the website's change clock last.
    const write = async () => {
      await repo.updateOrder(trx, orderId, { fulfillment_status: 'CANCELED' });
      await returnRedemptions(trx, websiteId, orderId);
      notified = await emit(trx, deps, {
        websiteId,
        topic: 'order.update',
        data: { orderId, update: 'CANCELED' },
      });
      // Canceling is the owner's doing: the buyer is told.
      emailed = await emailBuyer(trx, deps, order, 'cancellation_notice');
      // Everything left (none when a refund took it all first); the cancel's restock does the stock.
      if (options.refund && order.payment_state !== 'REFUNDED') {
        const everything = { full: true, restock: false, lines: [], shipping: false, otherMinor: 0 };
        refund = await refundLocked(trx, deps, order, everything);
      }
      // After the refund's gift cards, as a checkout takes a gift card before the buyer's profile.
      if (order.customer_id) await recountOrders(trx, websiteId, order.customer_id);
      const documentId = await voidOrderDocument(trx, websiteId, orderId);
      if (documentId) documents.push(documentId);
    };
    // What earlier refunds put back in stock is not put back again.
    const refunds = await selectRefunds(trx, websiteId, orderId);
    const restockedBefore = (lineId: string) =>
      refunds
        .filter((r) => r.restocked)
        .flatMap((r) => r.lines)
        .filter((l) => l.lineId === lineId)
        .reduce((sum, l) => sum + l.quantity, 0);
    const left = (lineId: string) =>
      order.document.lineItems.find((l) => l.id === lineId)!.quantity - restockedBefore(lineId);
    const restock = options.restock && order.stock_taken !== false;
    const quantities = restock ? variantQuantities(order, left) : new Map<string, number>();
    const { restocked, announce } = await withRestock(trx, deps, order, quantities, write);
    await stampRows(trx, deps.clock, websiteId, 'orders', [orderId]);
    await stampRows(trx, deps.clock, websiteId, 'transaction_documents', documents);
    return { restocked, refundedMinor: refund?.refunded.amountMinor ?? 0, announce };
  });
  announce();
  if (notified || refund?.notified) deps.jobs.wakeDeliveryWorkers();
  if (emailed || refund?.emailed) deps.jobs.wakeEmailWorkers();
  deps.orders.lists.changed(websiteId);
  return canceled;
}
