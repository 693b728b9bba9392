import { STOCKED } from '../product-types.ts';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { InventoryAdjustmentKeysTable, VariantsTable } from '../../db/schema.ts';
import type { Stock } from './inventory-operations.ts';

/** SQL of the inventory: the variants' stock, and the idempotency keys of adjustments. */

export interface InventoryRow {
  id: string;
  sku: string;
  attributes: Record<string, string>;
  stock_quantity: number;
  stock_unlimited: boolean;
  product_name: string;
  variant_attributes: string[];
}

/** The variants of the website's stocked products, with what their descriptor needs. */
function inventory(db: Db, websiteId: string) {
  return db
    .selectFrom('variants')
    .innerJoin('products', 'products.id', 'variants.product_id')
    .select([
      'variants.id',
      'variants.sku',
      'variants.attributes',
      'variants.stock_quantity',
      'variants.stock_unlimited',
      'products.name as product_name',
      'products.variant_attributes',
    ])
    .where('variants.website_id', '=', websiteId)
    .where(sql<boolean>`products.type = any(${STOCKED})`);
}

/** One keyset page by variant id, on the (website_id, id) index. */
export function selectInventoryPage(
  db: Db,
  websiteId: string,
  afterId: string | undefined,
  limit: number,
): Promise<InventoryRow[]> {
  let query = inventory(db, websiteId).orderBy('variants.id').limit(limit);
  if (afterId) query = query.where('variants.id', '>', afterId);
  return query.execute();
}

/** These variants of the website; `ids` must be UUIDs. */
export function selectInventory(db: Db, websiteId: string, ids: string[]): Promise<InventoryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return inventory(db, websiteId)
    .where(sql<boolean>`variants.id = any(${ids}::uuid[])`)
    .execute();
}

/** The product of each of these variants of the website, by variant id; `ids` must be UUIDs. */
export async function variantProducts(
  db: Db,
  websiteId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('variants')
    .innerJoin('products', 'products.id', 'variants.product_id')
    .select(['variants.id', 'variants.product_id'])
    .where('variants.website_id', '=', websiteId)
    .where(sql<boolean>`variants.id = any(${ids}::uuid[])`)
    .where(sql<boolean>`products.type = any(${STOCKED})`)
    .execute();
  return new Map(rows.map((r) => [r.id, r.product_id]));
}

export type LockedVariant = Pick<VariantsTable, 'id' | 'product_id' | 'sku'> & Stock;

/** Locks these variants in id order, after their products (product-changes.ts changeProducts). */
export function lockVariants(db: Db, websiteId: string, ids: string[]): Promise<LockedVariant[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('variants')
    .select(['id', 'product_id', 'sku', 'stock_quantity', 'stock_unlimited'])
    .where('website_id', '=', websiteId)
    .where(sql<boolean>`id = any(${ids}::uuid[])`)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Writes the new stock of several variants in one statement. */
export async function updateStock(db: Db, stocks: (Stock & { id: string })[]): Promise<void> {
  if (stocks.length === 0) return;
  await sql`
    UPDATE variants SET stock_quantity = s.quantity, stock_unlimited = s.unlimited
    FROM unnest(${stocks.map((s) => s.id)}::uuid[], ${stocks.map((s) => s.stock_quantity)}::int4[],
                ${stocks.map((s) => s.stock_unlimited)}::bool[]) AS s(id, quantity, unlimited)
    WHERE variants.id = s.id`.execute(db);
}

/**
 * Takes these quantities from the variants of limited stock that have enough, in one statement;
 * returns those taken from. A variant of unlimited stock, short of stock or not of the website is
 * left as it was. Under the products' locks, as every change of stock.
 */
export async function takeStockWhereEnough(
  db: Db,
  websiteId: string,
  wanted: { id: string; quantity: number }[],
): Promise<{ id: string; product_id: string }[]> {
  if (wanted.length === 0) return [];
  const { rows } = await sql<{ id: string; product_id: string }>`
    UPDATE variants SET stock_quantity = variants.stock_quantity - w.quantity
    FROM unnest(${wanted.map((w) => w.id)}::uuid[], ${wanted.map((w) => w.quantity)}::int4[]) AS w(id, quantity)
    WHERE variants.id = w.id AND variants.website_id = ${websiteId}
      AND NOT variants.stock_unlimited AND variants.stock_quantity >= w.quantity
    RETURNING variants.id, variants.product_id`.execute(db);
  return rows;
}

/** Keeps the key of an applied adjustment; replaces an expired row the sweep has not reached yet. */
export async function saveKey(db: Db, row: InventoryAdjustmentKeysTable): Promise<void> {
  await db
    .insertInto('inventory_adjustment_keys')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['website_id', 'caller', 'key'])
        .doUpdateSet({ request_digest: row.request_digest, created_at: row.created_at }),
    )
    .execute();
}
