import type { Db } from '../db/database.ts';

/** Up to `limit` orders placed by a contact (their customerId is the contact id), newest first. */
export function selectContactOrders(db: Db, websiteId: string, contactId: string, limit: number) {
  return db
    .selectFrom('orders')
    .select(['id', 'order_number', 'placed_on', 'fulfillment_status', 'payment_state', 'grand_total_minor'])
    .where('website_id', '=', websiteId)
    .where('customer_id', '=', contactId)
    .orderBy('placed_on', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export type ContactOrderRow = Awaited<ReturnType<typeof selectContactOrders>>[number];
