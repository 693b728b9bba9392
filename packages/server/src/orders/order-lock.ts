import type { Db } from '../db/database.ts';
import { Conflict, NotFound } from '../shared/errors.ts';
import type { OrderRow } from './order-document.ts';
import * as repo from './orders.repo.ts';

/**
 * The order, locked for the rest of the transaction, for a change of it: a 409
 * CONCURRENT_MODIFICATION at once while another change holds it (platform-surface 2.1.5), a 404
 * when the website has no such order.
 */
export async function lockForChange(trx: Db, websiteId: string, orderId: string): Promise<OrderRow> {
  const order = await repo.lockOrder(trx, websiteId, orderId);
  if (order === 'busy') {
    throw new Conflict(
      'a request using the provided Order is already in progress; retry once it has finished',
      'CONCURRENT_MODIFICATION',
    );
  }
  if (!order) throw new NotFound(`order not found: ${orderId}`);
  return order;
}
