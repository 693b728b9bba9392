import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ProfilesTable } from '../db/schema.ts';
import type { AddressJson } from '../shared/order-model.ts';
import type { SortField } from './profiles.schemas.ts';

/** SQL of customer profiles (platform-surface 2.3). */

/**
 * Creates the buyer's profile, or adds an order to the one that has the e-mail whatever its case,
 * in one statement on the (website_id, lower(email)) unique index: concurrent first orders of a
 * buyer make one profile. The address is the latest order's that had one: an older order (an
 * import of past sales) does not replace it. Names once known are kept.
 */
export async function upsertBuyer(db: Db, row: ProfilesTable): Promise<{ id: string; inserted: boolean }> {
  const address = row.address === null ? null : JSON.stringify(row.address);
  const { rows } = await sql<{ id: string; inserted: boolean }>`
    INSERT INTO profiles AS p (id, website_id, email, first_name, last_name, has_account, accepts_marketing,
      address, order_count, total_order_minor, total_refund_minor, first_order_on, last_order_on, created_on,
      email_created_on)
    VALUES (${row.id}, ${row.website_id}, ${row.email}, ${row.first_name}, ${row.last_name}, ${row.has_account},
      ${row.accepts_marketing}, ${address}::jsonb, ${row.order_count}, ${row.total_order_minor},
      ${row.total_refund_minor}, ${row.first_order_on}, ${row.last_order_on}, ${row.created_on},
      ${row.email_created_on})
    ON CONFLICT (website_id, lower(email)) DO UPDATE SET
      order_count = p.order_count + excluded.order_count,
      total_order_minor = p.total_order_minor + excluded.total_order_minor,
      first_order_on = least(p.first_order_on, excluded.first_order_on),
      last_order_on = greatest(p.last_order_on, excluded.last_order_on),
      address = CASE
        WHEN excluded.address IS NOT NULL
          AND (p.last_order_on IS NULL OR excluded.last_order_on >= p.last_order_on) THEN excluded.address
        ELSE p.address END,
      first_name = CASE WHEN p.first_name = '' THEN excluded.first_name ELSE p.first_name END,
      last_name = CASE WHEN p.last_name = '' THEN excluded.last_name ELSE p.last_name END
    RETURNING id, (xmax = 0) AS inserted`.execute(db);
  return rows[0]!;
}

export interface ProfileRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  has_account: boolean;
  accepts_marketing: boolean;
  address: AddressJson | null;
  order_count: number;
  total_order_minor: number;
  total_refund_minor: number;
  first_order_on: Date | null;
  last_order_on: Date | null;
  /** created_on with its microseconds, `2026-01-19T19:57:40.731427Z`. */
  created_on_text: string;
  /** The website's currency, for the summary's amounts. */
  currency: string;
  /** The row's value of the sort column, as text, for the next page's cursor. */
  sort_key: string;
}

const MICROS = sql<string>`to_char(p.created_on AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The sort columns, each matched by an index of (website_id, column, id). */
const SORT_COLUMNS: Record<SortField, RawBuilder<unknown>> = {
  id: sql`p.id`,
  createdOn: sql`p.created_on`,
  email: sql`lower(p.email)`,
  lastName: sql`p.last_name`,
};

function profiles(db: Db, websiteId: string, sortField: SortField = 'id') {
  return db
    .selectFrom('profiles as p')
    .innerJoin('websites as w', 'w.id', 'p.website_id')
    .select([
      'p.id',
      'p.email',
      'p.first_name',
      'p.last_name',
      'p.has_account',
      'p.accepts_marketing',
      'p.address',
      'p.order_count',
      'p.total_order_minor',
      'p.total_refund_minor',
      'p.first_order_on',
      'p.last_order_on',
      'w.currency',
      MICROS.as('created_on_text'),
      (sortField === 'createdOn' ? MICROS : sql<string>`${SORT_COLUMNS[sortField]}::text`).as('sort_key'),
    ])
    .where('p.website_id', '=', websiteId);
}

export interface ProfileFilter {
  isCustomer?: boolean;
  hasAccount?: boolean;
  email?: string;
  sortField: SortField;
  descending: boolean;
  /** The last position seen: the sort column's value (sort_key) and the id. */
  after?: { key: string; id: string };
}

/** One keyset page on (sort column, id) in the direction asked. */
export function selectProfilePage(db: Db, websiteId: string, filter: ProfileFilter, limit: number) {
  const { sortField, descending, after } = filter;
  const direction = descending ? 'desc' : 'asc';
  const column = SORT_COLUMNS[sortField];
  let page = profiles(db, websiteId, sortField);
  if (sortField !== 'id') page = page.orderBy(column, direction);
  page = page.orderBy('p.id', direction).limit(limit);
  if (after) {
    const op = sql.raw(descending ? '<' : '>');
    const key = sortField === 'createdOn' ? sql`${after.key}::timestamptz` : sql`${after.key}`;
    page = page.where(
      sortField === 'id'
        ? sql<boolean>`p.id ${op} ${after.id}`
        : sql<boolean>`(${column}, p.id) ${op} (${key}, ${after.id})`,
    );
  }
  if (filter.isCustomer) page = page.where('p.order_count', '>', 0);
  if (filter.hasAccount) page = page.where('p.has_account', '=', true);
  if (filter.email !== undefined) page = page.where(sql<boolean>`lower(p.email) = lower(${filter.email})`);
  return page.execute() as Promise<ProfileRow[]>;
}

/** These profiles of the website. */
export function selectProfiles(db: Db, websiteId: string, ids: string[]): Promise<ProfileRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return profiles(db, websiteId).where('p.id', 'in', ids).execute() as Promise<ProfileRow[]>;
}

/**
 * Counts a buyer's orders and their refunds again from the orders that stand (canceled ones left
 * out), as the transaction summaries of analytics count them from the documents that are not
 * voided. The profile is locked first and counted in a statement of its own, so an order placed
 * meanwhile is either counted here (it committed before the lock was granted) or adds itself
 * after.
 */
export async function recountOrders(db: Db, websiteId: string, profileId: string): Promise<void> {
  await sql`SELECT 1 FROM profiles WHERE website_id = ${websiteId} AND id = ${profileId} FOR UPDATE`.execute(
    db,
  );
  await sql`
    UPDATE profiles p SET order_count = s.n, total_order_minor = s.total,
      total_refund_minor = s.refunded, first_order_on = s.first, last_order_on = s.last
    FROM (SELECT count(*)::int AS n, coalesce(sum(grand_total_minor), 0) AS total,
            coalesce(sum(refunded_total_minor), 0) AS refunded,
            min(placed_on) AS first, max(placed_on) AS last
          FROM orders
          WHERE website_id = ${websiteId} AND customer_id = ${profileId} AND fulfillment_status <> 'CANCELED') s
    WHERE p.website_id = ${websiteId} AND p.id = ${profileId}`.execute(db);
}
