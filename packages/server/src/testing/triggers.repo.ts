import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { FulfillmentStatus } from '../shared/order-model.ts';

/**
 * What triggers look up before they change anything: the record a topic acts on when the caller
 * names none (the newest), and the notifications a change queued.
 */

/** A variant an order can take from stock, with what the order line needs of it. */
export interface SellableVariant {
  id: string;
  sku: string;
  stock_quantity: number;
  stock_unlimited: boolean;
  price_minor: number;
}

/** PHYSICAL variants of the website: only they have stock (catalog/product-types.ts STOCKED). */
function physicalVariants(db: Db, websiteId: string) {
  return db
    .selectFrom('variants as v')
    .innerJoin('products as p', 'p.id', 'v.product_id')
    .select([
      'v.id',
      'v.sku',
      'v.stock_quantity',
      'v.stock_unlimited',
      sql<number>`CASE WHEN v.on_sale THEN v.sale_price_minor ELSE v.base_price_minor END`.as('price_minor'),
    ])
    .where('v.website_id', '=', websiteId)
    .where('p.type', '=', 'PHYSICAL');
}

export function variantBySku(db: Db, websiteId: string, sku: string): Promise<SellableVariant | undefined> {
  return physicalVariants(db, websiteId).where('v.sku', '=', sku).executeTakeFirst();
}

/** The website's newest product's first variant with stock: what a shopper would most likely buy. */
export function firstStockedVariant(db: Db, websiteId: string): Promise<SellableVariant | undefined> {
  return physicalVariants(db, websiteId)
    .where((eb) => eb.or([eb('v.stock_unlimited', '=', true), eb('v.stock_quantity', '>', 0)]))
    .orderBy('p.created_on', 'desc')
    .orderBy('v.position')
    .limit(1)
    .executeTakeFirst();
}

/** An order's fulfillment status and payment state, as the order.update actions ask of it. */
export interface OrderStates {
  fulfillment_status: FulfillmentStatus;
  payment_state: string;
}

export function orderStates(db: Db, websiteId: string, orderId: string): Promise<OrderStates | undefined> {
  return db
    .selectFrom('orders')
    .select(['fulfillment_status', 'payment_state'])
    .where('website_id', '=', websiteId)
    .where('id', '=', orderId)
    .executeTakeFirst();
}

/** The website's newest order (the last placed), of `status` when one is given. */
export async function newestOrder(
  db: Db,
  websiteId: string,
  status?: FulfillmentStatus,
): Promise<string | undefined> {
  let query = db.selectFrom('orders').select('id').where('website_id', '=', websiteId);
  if (status) query = query.where('fulfillment_status', '=', status);
  const row = await query
    .orderBy('placed_on', 'desc')
    .orderBy('order_number', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/**
 * The website's newest PAID order whose payment the store took (its transaction document lists
 * one): what a refund can give back. An order imported from another channel was paid elsewhere.
 */
export async function newestPaidOrder(db: Db, websiteId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('orders as o')
    .innerJoin('transaction_documents as d', (join) =>
      join.onRef('d.order_id', '=', 'o.id').onRef('d.website_id', '=', 'o.website_id'),
    )
    .select('o.id')
    .where('o.website_id', '=', websiteId)
    .where('o.payment_state', '=', 'PAID')
    .where(sql<boolean>`json_array_length(d.document -> 'payments') > 0`)
    .orderBy('o.placed_on', 'desc')
    .orderBy('o.order_number', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

export async function newestContact(db: Db, websiteId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('profiles')
    .select('id')
    .where('website_id', '=', websiteId)
    .orderBy('created_on', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** The newest address book entry of the website, or of one contact. */
export function newestEntry(
  db: Db,
  websiteId: string,
  contactId?: string,
): Promise<{ id: string; contact_id: string } | undefined> {
  let query = db
    .selectFrom('address_book_entries')
    .select(['id', 'contact_id'])
    .where('website_id', '=', websiteId);
  if (contactId) query = query.where('contact_id', '=', contactId);
  return query.orderBy('created_on', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function entryContact(db: Db, websiteId: string, entryId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('address_book_entries')
    .select('contact_id')
    .where('website_id', '=', websiteId)
    .where('id', '=', entryId)
    .executeTakeFirst();
  return row?.contact_id;
}

export function findProduct(
  db: Db,
  websiteId: string,
  productId: string,
): Promise<{ id: string; name: string } | undefined> {
  return db
    .selectFrom('products')
    .select(['id', 'name'])
    .where('website_id', '=', websiteId)
    .where('id', '=', productId)
    .executeTakeFirst();
}

export function newestProduct(db: Db, websiteId: string): Promise<{ id: string; name: string } | undefined> {
  return db
    .selectFrom('products')
    .select(['id', 'name'])
    .where('website_id', '=', websiteId)
    .orderBy('created_on', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The store page new products go on: the website's first. */
export async function firstStorePage(db: Db, websiteId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('store_pages')
    .select('id')
    .where('website_id', '=', websiteId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/**
 * The notifications of `topic` queued for the website between two readings of the clock that
 * the change happened between, whose data contains `data`: the change's own, to the subscriptions
 * that listen, even when other changes of the website queue theirs meanwhile.
 */
export async function queuedNotifications(
  db: Db,
  event: { websiteId: string; topic: string; data: object; from: Date; to: Date },
): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('website_id', '=', event.websiteId)
    .where('created_on', '>=', event.from)
    .where('created_on', '<=', event.to)
    .where('topic', '=', event.topic)
    .where(sql<boolean>`(body::jsonb -> 'data') @> ${JSON.stringify(event.data)}::jsonb`)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
