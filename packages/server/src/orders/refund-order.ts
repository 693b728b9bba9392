import { stampRows } from '../db/change-clock.ts';
import type { Db } from '../db/database.ts';
import { recountOrders } from '../customers/profiles.repo.ts';
import { selectOrderDocument, updateDocument } from '../transactions/transactions.repo.ts';
import { emit } from '../webhooks/outbox.ts';
import type { OrderRow } from './order-document.ts';
import { emailBuyer } from './order-emails.ts';
import { checkOrderId } from './orders.read.ts';
import * as repo from './orders.repo.ts';
import { lockForChange } from './order-lock.ts';
import type { OrderDeps } from './place-order.ts';
import { fullRefund, refundAmounts, type RefundAmounts, type RefundRequest } from './refund-amounts.ts';
import { checkRestock, describe, money, refundable } from './refundable.ts';
import { insertRefund, selectRefunds, type RefundRow } from './refunds.repo.ts';
import { variantQuantities, withRestock } from './restock.ts';
import { refundBoughtGiftCards, refundPayments } from './refund-split.ts';

/**
 * Refunding a paid order, all or part, as the owner does from the order's page (the platform's
 * API has no refund endpoint: platform-surface 2.1.4). One transaction, under the order's lock, so
 * two refunds racing for what is left never give back more than was paid:
 * - the refund's row (which lines, how many, the shipping, whether restocked);
 * - the order's `refundedTotal` and, once everything paid is refunded, `paymentState` REFUNDED (a
 *   part refund keeps PAID, the platform's most likely answer: docs/orders.md);
 * - the transaction document's payment: the refund listed, `refundedAmount` and the nets
 *   (transactions/transaction-document.ts withRefund); with a gift card's payment too, the card's
 *   first, then the gift card's, whose balance is given back (refund-split.ts);
 * - a gift card the order bought, for each such item refunded: disabled, if still unspent;
 * - the buyer's profile totals, `order.update` with REFUNDED, the buyer's refund notice;
 * - when asked, the refunded items back in stock (restock.ts);
 * then new modifiedOn stamps for the order and its document.
 */

export interface RefundInput extends RefundRequest {
  /** Refund everything left (items, shipping and money); the lines, shipping and amount asked are then ignored. */
  full: boolean;
  /** Put the refunded items back in stock. */
  restock: boolean;
}

export interface Refunded {
  refundId: string;
  amountMinor: number;
  refundedTotalMinor: number;
  paymentState: string;
  restocked: number;
}

/** What a refund made in a transaction leaves for after its commit. */
export interface RefundEffects {
  refunded: Refunded;
  documentId: string;
  notified: number;
  emailed: boolean;
  announce: () => void;
}

/**
 * Makes the refund of an order the caller has locked, in its transaction (a cancel refunds this
 * way too); the caller stamps the order and the returned document, and after its commit wakes the
 * workers and announces.
 */
export async function refundLocked(
  trx: Db,
  deps: OrderDeps,
  order: OrderRow,
  input: RefundInput,
): Promise<RefundEffects> {
  const websiteId = order.website_id;
  const earlier = await selectRefunds(trx, websiteId, order.id);
  const { refundable: refundableOrder, document } = refundable(
    order,
    await selectOrderDocument(trx, websiteId, order.id),
    earlier,
  );
  const amounts: RefundAmounts = input.full
    ? fullRefund(refundableOrder, describe(order))
    : refundAmounts(refundableOrder, input, describe(order));
  if (input.restock) checkRestock(order);
  const refundedOn = deps.clock.now(websiteId);
  const row: RefundRow = {
    id: deps.ids.uuid(),
    website_id: websiteId,
    order_id: order.id,
    amount_minor: amounts.amountMinor,
    lines: amounts.lines,
    shipping_minor: amounts.shippingMinor,
    restocked: input.restock,
    refunded_on: refundedOn,
    external_transaction_id: `re_test_${deps.ids.objectId()}`,
  };
  const refundedTotalMinor = order.refunded_total_minor + amounts.amountMinor;
  const paymentState = refundedTotalMinor >= refundableOrder.paidMinor ? 'REFUNDED' : order.payment_state;
  let notified = 0;
  let emailed = false;
  const write = async () => {
    await insertRefund(trx, row);
    await repo.updateOrder(trx, order.id, {
      refunded_total_minor: refundedTotalMinor,
      payment_state: paymentState,
      document: JSON.stringify({ ...order.document, refundedTotal: money(order, refundedTotalMinor) }),
    });
    await refundBoughtGiftCards(trx, deps, order, row.lines);
    const paidBack = await refundPayments(trx, deps, order, document.document, {
      id: row.id,
      amountMinor: row.amount_minor,
      refundedOn,
      externalTransactionId: row.external_transaction_id,
    });
    await updateDocument(trx, document.id, paidBack.document);
    if (order.customer_id) await recountOrders(trx, websiteId, order.customer_id);
    notified = await emit(trx, deps, {
      websiteId,
      topic: 'order.update',
      data: { orderId: order.id, update: 'REFUNDED' },
    });
    emailed = await emailBuyer(trx, deps, order, 'refund_notice', {
      refunded: money(order, row.amount_minor),
      ...(paidBack.giftCardMinor > 0 && { refundedToGiftCard: money(order, paidBack.giftCardMinor) }),
    });
  };
  const refundedOf = (lineId: string) => amounts.lines.find((l) => l.lineId === lineId)?.quantity ?? 0;
  const quantities = input.restock ? variantQuantities(order, refundedOf) : new Map<string, number>();
  const { restocked, announce } = await withRestock(trx, deps, order, quantities, write);
  return {
    refunded: {
      refundId: row.id,
      amountMinor: row.amount_minor,
      refundedTotalMinor,
      paymentState,
      restocked,
    },
    documentId: document.id,
    notified,
    emailed,
    announce,
  };
}

export async function refundOrder(
  deps: OrderDeps,
  websiteId: string,
  orderId: string,
  input: RefundInput,
): Promise<Refunded> {
  checkOrderId(orderId);
  const effects = await deps.db.transaction().execute(async (trx) => {
    const order = await lockForChange(trx, websiteId, orderId);
    const made = await refundLocked(trx, deps, order, input);
    // The stamps take the website's change clock last.
    await stampRows(trx, deps.clock, websiteId, 'orders', [orderId]);
    await stampRows(trx, deps.clock, websiteId, 'transaction_documents', [made.documentId]);
    return made;
  });
  effects.announce();
  if (effects.notified) deps.jobs.wakeDeliveryWorkers();
  if (effects.emailed) deps.jobs.wakeEmailWorkers();
  deps.orders.lists.changed(websiteId);
  return effects.refunded;
}
