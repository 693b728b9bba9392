import { sql, type Insertable, type Updateable } from 'kysely';
import type { Head } from '../catalog/list-cache.ts';
import type { Reader } from '../catalog/products.repo.ts';
import { queryPrepared, type Db } from '../db/database.ts';
import type { OrderImportKeysTable, OrdersTable, TransactionDocumentsTable } from '../db/schema.ts';
import type { OrderRow } from './order-document.ts';
import type { Window } from '../shared/iso-time.ts';

/** SQL of orders: the list, reads and writes of the rows, numbers, and import keys. */

export interface OrderFilter {
  /** The last position seen: the page continues with older changes. */
  before?: { modifiedOn: Date; id: string };
  window?: Window;
  fulfillmentStatus?: string;
  customerId?: string;
  paymentStates: string[];
}

const version = sql<number>`(extract(epoch FROM modified_on) * 1000)::int8`.as('version');

/** One keyset page, newest change first (platform-surface Q3), on orders_page_idx. */
export function selectOrderPage(reader: Reader, websiteId: string, filter: OrderFilter, limit: number) {
  let page = reader.db
    .selectFrom('orders')
    .select(['id', version])
    .where('website_id', '=', websiteId)
    .where(sql<boolean>`payment_state = ANY(${filter.paymentStates}::text[])`)
    .orderBy('modified_on', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (filter.before) {
    page = page.where(sql<boolean>`(modified_on, id) < (${filter.before.modifiedOn}, ${filter.before.id})`);
  }
  if (filter.window) {
    page = page
      .where('modified_on', '>', filter.window.after)
      .where('modified_on', '<=', filter.window.before);
  }
  if (filter.fulfillmentStatus) {
    page = page.where(
      'fulfillment_status',
      '=',
      filter.fulfillmentStatus as OrdersTable['fulfillment_status'],
    );
  }
  if (filter.customerId) page = page.where('customer_id', '=', filter.customerId);
  return queryPrepared<Head>(reader.pool, page);
}

/** These orders of the website, whole. */
export function selectOrders(db: Db, websiteId: string, ids: string[]): Promise<OrderRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('orders')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('id', 'in', ids)
    .execute() as Promise<OrderRow[]>;
}

/**
 * Locks the order for the rest of the transaction; undefined when it does not exist. 'busy'
 * when another transaction holds it: a change of an order is answered at once, not queued
 * (platform-surface 2.1.5: 409 while a request on the order is in progress).
 */
export async function lockOrder(
  db: Db,
  websiteId: string,
  id: string,
): Promise<OrderRow | 'busy' | undefined> {
  try {
    return (await db
      .selectFrom('orders')
      .selectAll()
      .where('website_id', '=', websiteId)
      .where('id', '=', id)
      .forUpdate()
      .noWait()
      .executeTakeFirst()) as OrderRow | undefined;
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') return 'busy';
    throw error;
  }
}

/** An order and its transaction document, in one statement. */
export async function insertOrder(
  db: Db,
  row: Insertable<OrdersTable>,
  document: TransactionDocumentsTable,
): Promise<void> {
  await db
    .with('placed', (db) => db.insertInto('orders').values(row))
    .insertInto('transaction_documents')
    .values(document)
    .execute();
}

export async function updateOrder(db: Db, id: string, set: Updateable<OrdersTable>): Promise<void> {
  await db.updateTable('orders').set(set).where('id', '=', id).execute();
}

/** What an order line needs of a variant of the website: its catalog entry and first image. */
export interface CatalogVariant {
  id: string;
  product_id: string;
  product_type: string;
  product_name: string;
  variant_attributes: string[];
  sku: string;
  attributes: Record<string, string>;
  weight_value: number;
  length: number;
  width: number;
  height: number;
  image_id: string | null;
}

/** These variants of the website (`ids` are UUIDs), with their product's name and image. */
export function selectCatalogVariants(db: Db, websiteId: string, ids: string[]): Promise<CatalogVariant[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('variants as v')
    .innerJoin('products as p', 'p.id', 'v.product_id')
    .select([
      'v.id',
      'v.product_id',
      'p.type as product_type',
      'p.name as product_name',
      'p.variant_attributes',
      'v.sku',
      'v.attributes',
      'v.weight_value',
      'v.length',
      'v.width',
      'v.height',
      sql<string | null>`coalesce(v.image_id, (SELECT i.id FROM images i WHERE i.product_id = p.id
        ORDER BY i.position LIMIT 1))`.as('image_id'),
    ])
    .where('v.website_id', '=', websiteId)
    .where(sql<boolean>`v.id = any(${ids}::uuid[])`)
    .execute();
}

export async function saveImportKey(db: Db, row: OrderImportKeysTable): Promise<void> {
  await db
    .insertInto('order_import_keys')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['website_id', 'caller', 'key']).doUpdateSet({
        request_digest: row.request_digest,
        order_id: row.order_id,
        created_at: row.created_at,
      }),
    )
    .execute();
}

/** The website's orders imported through API keys since `since` (caller `key:...`). */
function keyImports(db: Db, websiteId: string, since: Date) {
  return (
    db
      .selectFrom('order_import_keys')
      .where('website_id', '=', websiteId)
      // Written out, not a parameter: the index of these keys is partial (migration 032).
      .where(sql<boolean>`caller LIKE 'key:%'`)
      .where('created_at', '>', since)
  );
}

/** The statement of countKeyImports (its plan is tested). */
export function countKeyImportsQuery(db: Db, websiteId: string, since: Date, upTo: number) {
  return db
    .selectFrom(
      keyImports(db, websiteId, since)
        .select(sql`1`.as('one'))
        .limit(upTo)
        .as('recent'),
    )
    .select(sql<string>`count(*)`.as('count'));
}

/**
 * How many orders the website's API keys imported since `since`, counted up to `upTo`: the
 * hourly limit needs no more, and the count runs while the website's order number is held.
 */
export async function countKeyImports(db: Db, websiteId: string, since: Date, upTo: number): Promise<number> {
  const { count } = await countKeyImportsQuery(db, websiteId, since, upTo).executeTakeFirstOrThrow();
  return Number(count);
}

/** When the oldest of those imports was made, for a refusal's Retry-After. */
export async function oldestKeyImport(db: Db, websiteId: string, since: Date): Promise<Date | null> {
  const row = await keyImports(db, websiteId, since)
    .select(sql<Date | null>`min(created_at)`.as('oldest'))
    .executeTakeFirstOrThrow();
  return row.oldest;
}

/** The owner list's filters; `from` and `to` are calendar days in `timeZone`, both included. */
export interface PlacedFilter {
  fulfillmentStatus?: OrdersTable['fulfillment_status'];
  before?: { placedOn: Date; id: string };
  from?: string;
  to?: string;
  timeZone: string;
  orderNumber?: number;
  /** Part of the buyer's e-mail, any case. */
  email?: string;
}

/**
 * One page of the owner's order list, newest placed first, on orders_placed_idx (the placing
 * days bound its range); `before` is the last order of the page before.
 */
export function selectPlacedPage(
  db: Db,
  websiteId: string,
  filter: PlacedFilter,
  limit: number,
): Promise<OrderRow[]> {
  let page = db
    .selectFrom('orders')
    .selectAll()
    .where('website_id', '=', websiteId)
    .orderBy('placed_on', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
  if (filter.before) {
    page = page.where(sql<boolean>`(placed_on, id) < (${filter.before.placedOn}, ${filter.before.id})`);
  }
  if (filter.fulfillmentStatus) page = page.where('fulfillment_status', '=', filter.fulfillmentStatus);
  // A day's start in the website's zone, as a time: the bound stays an index condition.
  if (filter.from) {
    page = page.where(
      'placed_on',
      '>=',
      sql<Date>`(${filter.from}::date)::timestamp AT TIME ZONE ${filter.timeZone}`,
    );
  }
  if (filter.to) {
    page = page.where(
      'placed_on',
      '<',
      sql<Date>`(${filter.to}::date + 1)::timestamp AT TIME ZONE ${filter.timeZone}`,
    );
  }
  if (filter.orderNumber !== undefined) page = page.where('order_number', '=', filter.orderNumber);
  if (filter.email) {
    const pattern = `%${filter.email.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    page = page.where(sql<boolean>`customer_email ILIKE ${pattern}`);
  }
  return page.execute() as Promise<OrderRow[]>;
}

/** A variant a sample order may sell: of a PHYSICAL product, with stock or unlimited. */
export interface StockedVariant {
  id: string;
  stock_quantity: number;
  stock_unlimited: boolean;
  base_price_minor: number;
  sale_price_minor: number;
  on_sale: boolean;
}

/** Up to `limit` such variants of the website, in a stable order, so a large catalogue costs one short query. */
export function selectStockedVariants(db: Db, websiteId: string, limit: number): Promise<StockedVariant[]> {
  return db
    .selectFrom('variants as v')
    .innerJoin('products as p', 'p.id', 'v.product_id')
    .select([
      'v.id',
      'v.stock_quantity',
      'v.stock_unlimited',
      'v.base_price_minor',
      'v.sale_price_minor',
      'v.on_sale',
    ])
    .where('v.website_id', '=', websiteId)
    .where('p.type', '=', 'PHYSICAL')
    .where((eb) => eb.or([eb('v.stock_unlimited', '=', true), eb('v.stock_quantity', '>', 0)]))
    .orderBy('v.id')
    .limit(limit)
    .execute();
}
