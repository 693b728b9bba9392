import { stampRows } from '../db/change-clock.ts';
import { ValidationError } from '../shared/errors.ts';
import { emit } from '../webhooks/outbox.ts';
import { lockForChange } from './order-lock.ts';
import { checkOrderId } from './orders.read.ts';
import * as repo from './orders.repo.ts';
import type { OrderDeps } from './place-order.ts';

/**
 * Marking a FULFILLED order pending again, as the owner does from the order's page (the
 * platform's "Mark as pending"; its API has no such endpoint). The order's fulfillmentStatus
 * becomes PENDING and its fulfilledOn null, since it is no longer fulfilled (a later fulfilment
 * sets it anew); the shipments already recorded stay in `fulfillments`, as they did happen. The
 * order gets a new modifiedOn and `order.update` with `MARKED_PENDING` is queued
 * (platform-surface 3), in one transaction. Nothing else moves: no stock, no money, no e-mail to
 * the buyer, and the transaction document is unchanged (it has no fulfilment in it).
 */
export async function markOrderPending(deps: OrderDeps, websiteId: string, orderId: string): Promise<void> {
  checkOrderId(orderId);
  const notified = await deps.db.transaction().execute(async (trx) => {
    const order = await lockForChange(trx, websiteId, orderId);
    if (order.fulfillment_status === 'PENDING') {
      throw new ValidationError(`order ${orderId} is already PENDING; nothing changed`);
    }
    if (order.fulfillment_status === 'CANCELED') {
      throw new ValidationError(
        `order ${orderId} is CANCELED and cannot be marked pending: only a FULFILLED order can`,
      );
    }
    await repo.updateOrder(trx, orderId, { fulfillment_status: 'PENDING', fulfilled_on: null });
    const queued = await emit(trx, deps, {
      websiteId,
      topic: 'order.update',
      data: { orderId, update: 'MARKED_PENDING' },
    });
    await stampRows(trx, deps.clock, websiteId, 'orders', [orderId]);
    return queued;
  });
  if (notified) deps.jobs.wakeDeliveryWorkers();
  deps.orders.lists.changed(websiteId);
}
