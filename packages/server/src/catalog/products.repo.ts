import { sql } from 'kysely';
import { queryPrepared, type DatabaseHandle, type Db } from '../db/database.ts';
import { columnsOf } from '../db/prepared-statements.ts';
import type { ProductsTable, ProductType, VariantsTable } from '../db/schema.ts';
import type { Head } from './list-cache.ts';
import type { ImageRow, ProductRow, VariantRow } from './products.mapper.ts';
import type { Window } from '../shared/iso-time.ts';

/**
 * SQL for products and their variants; nothing else in the catalog touches these tables, except
 * inventory.repo.ts for the variants' stock.
 */

/** The whole row of a product, and of a variant, read by a change. */
const PRODUCT_ROW = columnsOf<ProductsTable>({
  id: true,
  website_id: true,
  store_page_id: true,
  type: true,
  name: true,
  description: true,
  url_slug: true,
  tags: true,
  is_visible: true,
  variant_attributes: true,
  currency: true,
  base_price_minor: true,
  sale_price_minor: true,
  on_sale: true,
  seo_options: true,
  digital_good: true,
  search_text: true,
  created_on: true,
  modified_on: true,
});
const VARIANT_ROW = columnsOf<VariantsTable>({
  id: true,
  product_id: true,
  website_id: true,
  position: true,
  sku: true,
  attributes: true,
  currency: true,
  base_price_minor: true,
  sale_price_minor: true,
  on_sale: true,
  stock_quantity: true,
  stock_unlimited: true,
  weight_unit: true,
  weight_value: true,
  dimension_unit: true,
  length: true,
  width: true,
  height: true,
  image_id: true,
  gtin: true,
  mpn: true,
  created_at: true,
});

/** A product as the API shows it: the row but its search text, named as joins need. */
const PRODUCT_COLUMNS = PRODUCT_ROW.filter((column) => column !== 'search_text').map(
  (column) => `products.${column}` as `products.${Exclude<keyof ProductsTable, 'search_text'>}`,
);

/**
 * Products with their store page slug, variants and images in one round trip: each list comes
 * as a JSON array from a correlated subquery on its (product_id, position) index.
 */
function products(db: Db, websiteId: string) {
  return db
    .selectFrom('products')
    .innerJoin('store_pages', 'store_pages.id', 'products.store_page_id')
    .select(PRODUCT_COLUMNS)
    .select('store_pages.url_slug as store_page_slug')
    .select(
      sql<
        VariantRow[]
      >`(SELECT coalesce(json_agg(v ORDER BY v.position), '[]') FROM variants v WHERE v.product_id = products.id)`.as(
        'variants',
      ),
    )
    .select(
      sql<
        ImageRow[]
      >`(SELECT coalesce(json_agg(i ORDER BY i.position), '[]') FROM images i WHERE i.product_id = products.id)`.as(
        'images',
      ),
    )
    .where('products.website_id', '=', websiteId);
}

/** `types`: only products of these types (the types an API version serves); all without. */
export function selectProducts(
  db: Db,
  websiteId: string,
  ids: string[],
  types?: readonly ProductType[],
): Promise<ProductRow[]> {
  let query = products(db, websiteId).where('products.id', 'in', ids);
  if (types) query = query.where('products.type', 'in', types);
  return query.execute();
}

/** The type of a product of the website, if there is one. */
export async function productType(db: Db, websiteId: string, id: string): Promise<ProductType | undefined> {
  const row = await db
    .selectFrom('products')
    .select('type')
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.type;
}

/** Which products exist, at which version: what a read needs before it uses cached documents. */
export type ProductHead = Head;

const version = sql<number>`(extract(epoch FROM products.modified_on) * 1000)::int8`.as('version');

/** The database as the hot reads use it: Kysely to build the query, the pool to run it prepared. */
export type Reader = Pick<DatabaseHandle, 'db' | 'pool'>;

export function selectProductHeads(
  reader: Reader,
  websiteId: string,
  ids: string[],
  types?: readonly ProductType[],
): Promise<ProductHead[]> {
  let query = reader.db
    .selectFrom('products')
    .select(['products.id', version])
    .where('products.website_id', '=', websiteId)
    .where(sql<boolean>`products.id = any(${ids})`);
  if (types) query = query.where(sql<boolean>`products.type = any(${types})`);
  return queryPrepared(reader.pool, query);
}

export interface PageFilter {
  after?: { modifiedOn: Date; id: string };
  window?: Window;
  types?: ProductType[];
  /** Lower-cased words that must all occur in the search text. */
  words?: string[];
}

/** One keyset page, ordered by (modified_on, id) ascending (api-details 4). */
export function selectProductPage(
  reader: Reader,
  websiteId: string,
  filter: PageFilter,
  limit: number,
): Promise<ProductHead[]> {
  let page = reader.db
    .selectFrom('products')
    .select(['products.id', version])
    .where('products.website_id', '=', websiteId)
    .orderBy('products.modified_on')
    .orderBy('products.id')
    .limit(limit);
  const { after, window, types, words } = filter;
  if (after) {
    page = page.where(sql<boolean>`(products.modified_on, products.id) > (${after.modifiedOn}, ${after.id})`);
  }
  if (window) {
    page = page
      .where('products.modified_on', '>', window.after)
      .where('products.modified_on', '<=', window.before);
  }
  if (types) page = page.where(sql<boolean>`products.type = any(${types})`);
  if (!words) return queryPrepared(reader.pool, page);
  for (const word of words) {
    page = page.where('products.search_text', 'like', `%${word.replace(/[\\%_]/g, '\\$&')}%`);
  }
  // Unprepared: the trigram index is only worth it for a rare word, which a generic plan cannot know.
  return page.execute();
}

/** The variants of one product, in order, for an update that rewrites them. */
export function selectProductVariants(db: Db, productId: string): Promise<VariantsTable[]> {
  return db
    .selectFrom('variants')
    .select(VARIANT_ROW)
    .where('product_id', '=', productId)
    .orderBy('position')
    .execute();
}

/** Locks the product row for the rest of the transaction, so concurrent updates apply one at a time. */
export function lockProduct(db: Db, websiteId: string, id: string): Promise<ProductsTable | undefined> {
  return db
    .selectFrom('products')
    .select(PRODUCT_ROW)
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Locks several products of the website in id order, the order every multi-product change takes
 * them in, so two such changes never deadlock; returns the ids of those found, in id order (their
 * rows are not read: a change of stock needs none of them, and they are held locked meanwhile).
 */
export async function lockProducts(db: Db, websiteId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('products')
    .select('id')
    .where('website_id', '=', websiteId)
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((row) => row.id);
}

export async function insertProduct(db: Db, row: ProductsTable): Promise<void> {
  await db.insertInto('products').values(row).execute();
}

export async function insertVariants(db: Db, rows: VariantsTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('variants').values(rows).execute();
}

export async function updateProductRow(db: Db, id: string, changes: Partial<ProductsTable>): Promise<void> {
  await db.updateTable('products').set(changes).where('id', '=', id).execute();
}

export async function updateVariantAttributes(
  db: Db,
  id: string,
  attributes: Record<string, string>,
): Promise<void> {
  await db.updateTable('variants').set({ attributes }).where('id', '=', id).execute();
}

export async function updateVariant(db: Db, id: string, changes: Partial<VariantsTable>): Promise<void> {
  await db.updateTable('variants').set(changes).where('id', '=', id).execute();
}

export async function deleteVariant(db: Db, id: string): Promise<void> {
  await db.deleteFrom('variants').where('id', '=', id).execute();
}

export async function deleteProductRow(db: Db, websiteId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('products')
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Slugs on the store page equal to `base` or of the form `base-N`, to pick the next free one. */
export async function takenSlugs(db: Db, storePageId: string, base: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('products')
    .select('url_slug')
    .where('store_page_id', '=', storePageId)
    .where((eb) => eb.or([eb('url_slug', '=', base), eb('url_slug', 'like', `${base}-%`)]))
    .execute();
  return new Set(rows.map((r) => r.url_slug));
}

export async function slugTaken(
  db: Db,
  storePageId: string,
  slug: string,
  exceptId?: string,
): Promise<boolean> {
  let query = db
    .selectFrom('products')
    .select('id')
    .where('store_page_id', '=', storePageId)
    .where('url_slug', '=', slug);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function existingSkus(db: Db, websiteId: string, skus: string[]): Promise<Set<string>> {
  if (skus.length === 0) return new Set();
  const rows = await db
    .selectFrom('variants')
    .select('sku')
    .where('website_id', '=', websiteId)
    .where('sku', 'in', skus)
    .execute();
  return new Set(rows.map((r) => r.sku));
}
