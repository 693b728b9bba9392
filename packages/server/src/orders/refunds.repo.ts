import type { Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { OrderRefundsTable } from '../db/schema.ts';

/** SQL of an order's refunds (orders/refund-order.ts). */

export type RefundRow = Selectable<OrderRefundsTable>;

/** The order's refunds, oldest first. */
export function selectRefunds(db: Db, websiteId: string, orderId: string): Promise<RefundRow[]> {
  return db
    .selectFrom('order_refunds')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('order_id', '=', orderId)
    .orderBy('refunded_on')
    .orderBy('id')
    .execute();
}

export async function insertRefund(db: Db, row: RefundRow): Promise<void> {
  await db
    .insertInto('order_refunds')
    .values({ ...row, lines: JSON.stringify(row.lines) })
    .execute();
}
