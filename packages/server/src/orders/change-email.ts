import { stampRows } from '../db/change-clock.ts';
import { parseEmail } from '../shared/email.ts';
import { ValidationError } from '../shared/errors.ts';
import { selectOrderDocument, updateDocument } from '../transactions/transactions.repo.ts';
import { emit } from '../webhooks/outbox.ts';
import { lockForChange } from './order-lock.ts';
import { checkOrderId } from './orders.read.ts';
import * as repo from './orders.repo.ts';
import { LIMITS } from './orders.schemas.ts';
import type { OrderDeps } from './place-order.ts';

/**
 * Changing the buyer's e-mail of an order, as the owner does from the order's page (the platform
 * has it in its order page; its API has no such endpoint). The address is trimmed and must be one
 * (as an import's `customerEmail`); the same address changes nothing and is refused. The order's
 * `customerEmail` and its transaction document's take the new address, both get a new
 * modifiedOn, and `order.update` with `EMAIL_UPDATED` is queued (platform-surface 3), in one
 * transaction. Any fulfillment status is allowed. The order keeps its `customerId`: the buyer's
 * profile (a contact, with its own e-mail) is neither changed nor swapped for another, and nothing
 * is e-mailed; the store's later e-mails about the order go to the new address.
 */
export async function changeOrderEmail(
  deps: OrderDeps,
  websiteId: string,
  orderId: string,
  email: string,
): Promise<void> {
  checkOrderId(orderId);
  const address = parseEmail(email, 'customerEmail');
  if (address.length > LIMITS.email) {
    throw new ValidationError(`customerEmail: at most ${LIMITS.email} characters`);
  }
  const notified = await deps.db.transaction().execute(async (trx) => {
    const order = await lockForChange(trx, websiteId, orderId);
    if (order.customer_email === address) {
      throw new ValidationError(`customerEmail: the order's e-mail is already ${address}; nothing changed`);
    }
    await repo.updateOrder(trx, orderId, { customer_email: address });
    // The document changes under the order's lock, as every change of it does; a spread keeps
    // its keys in the order they were written.
    const document = await selectOrderDocument(trx, websiteId, orderId);
    if (document) await updateDocument(trx, document.id, { ...document.document, customerEmail: address });
    const queued = await emit(trx, deps, {
      websiteId,
      topic: 'order.update',
      data: { orderId, update: 'EMAIL_UPDATED' },
    });
    await stampRows(trx, deps.clock, websiteId, 'orders', [orderId]);
    if (document) await stampRows(trx, deps.clock, websiteId, 'transaction_documents', [document.id]);
    return queued;
  });
  if (notified) deps.jobs.wakeDeliveryWorkers();
  deps.orders.lists.changed(websiteId);
}
