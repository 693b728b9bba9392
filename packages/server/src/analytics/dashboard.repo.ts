import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** SQL of a site's dashboard: one query for each figure, each bounded by the website's rows. */

/** The website's products, visible and hidden, on products_page_idx (website_id first). */
export async function countProducts(db: Db, websiteId: string): Promise<{ visible: number; hidden: number }> {
  const row = await db
    .selectFrom('products')
    .select([
      sql<string>`count(*) FILTER (WHERE is_visible)`.as('visible'),
      sql<string>`count(*) FILTER (WHERE NOT is_visible)`.as('hidden'),
    ])
    .where('website_id', '=', websiteId)
    .executeTakeFirstOrThrow();
  return { visible: Number(row.visible), hidden: Number(row.hidden) };
}

/**
 * The website's orders still to ship (fulfillment PENDING), whatever their payment, as the
 * owner's list filtered by Pending shows them; orders_page_idx carries the status, so this reads
 * the website's entries of the index only.
 */
export function awaitingFulfillmentQuery(db: Db, websiteId: string) {
  return db
    .selectFrom('orders')
    .select(sql<string>`count(*)`.as('count'))
    .where('website_id', '=', websiteId)
    .where('fulfillment_status', '=', 'PENDING');
}

export async function countAwaitingFulfillment(db: Db, websiteId: string): Promise<number> {
  return Number((await awaitingFulfillmentQuery(db, websiteId).executeTakeFirstOrThrow()).count);
}

export interface DayRevenue {
  /** YYYY-MM-DD in the website's time zone. */
  day: string;
  totalMinor: number;
  orders: number;
}

export interface RevenueDays {
  first: string;
  last: string;
  timeZone: string;
}

/**
 * What the website's orders placed from day `first` to day `last` (both included, days of
 * `timeZone`) came to, by day, less what was refunded of them, canceled orders left out; days
 * without orders are absent. The bounds are times computed from the parameters, so
 * orders_placed_idx (website_id, placed_on) reads just those days of this website.
 */
export function dailyRevenueQuery(websiteId: string, days: RevenueDays) {
  const { first, last, timeZone } = days;
  return sql<{ day: string; total: string; orders: string }>`
    SELECT to_char(placed_on AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS day,
           sum(grand_total_minor - refunded_total_minor) AS total, count(*) AS orders
    FROM orders
    WHERE website_id = ${websiteId}
      AND placed_on >= (${first}::date)::timestamp AT TIME ZONE ${timeZone}
      AND placed_on < (${last}::date + 1)::timestamp AT TIME ZONE ${timeZone}
      AND fulfillment_status <> 'CANCELED'
    GROUP BY 1
    ORDER BY 1`;
}

export async function selectDailyRevenue(
  db: Db,
  websiteId: string,
  days: RevenueDays,
): Promise<DayRevenue[]> {
  const { rows } = await dailyRevenueQuery(websiteId, days).execute(db);
  return rows.map((r) => ({ day: r.day, totalMinor: Number(r.total), orders: Number(r.orders) }));
}
