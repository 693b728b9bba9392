import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { OrderDownloadsTable } from '../db/downloads-schema.ts';

/** SQL of the download links of orders' DIGITAL lines (download-links.ts). */

export async function insertDownloads(db: Db, rows: OrderDownloadsTable[]): Promise<void> {
  if (rows.length) await db.insertInto('order_downloads').values(rows).execute();
}

/** The order's links, oldest first: the last of each line is the one to show. */
export function selectOrderDownloads(
  db: Db,
  websiteId: string,
  orderId: string,
): Promise<OrderDownloadsTable[]> {
  return db
    .selectFrom('order_downloads')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('order_id', '=', orderId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A link with what deciding on it needs: its order's state and its product's file now. */
export interface DownloadLink extends OrderDownloadsTable {
  payment_state: string;
  fulfillment_status: string;
  digital_good: { id: string; filename: string } | null;
}

/** The website's link, locked until the end of the transaction, so two downloads count one at a time. */
export function lockDownload(db: Db, websiteId: string, id: string): Promise<DownloadLink | undefined> {
  return db
    .selectFrom('order_downloads as d')
    .innerJoin('orders as o', 'o.id', 'd.order_id')
    .leftJoin('products as p', (join) =>
      join.onRef('p.id', '=', 'd.product_id').onRef('p.website_id', '=', 'd.website_id'),
    )
    .selectAll('d')
    .select(['o.payment_state', 'o.fulfillment_status', 'p.digital_good'])
    .where('d.website_id', '=', websiteId)
    .where('d.id', '=', id)
    .forUpdate('d')
    .executeTakeFirst();
}

export async function countDownload(db: Db, id: string): Promise<void> {
  await db
    .updateTable('order_downloads')
    .set({ downloads: sql<number>`downloads + 1` })
    .where('id', '=', id)
    .execute();
}
