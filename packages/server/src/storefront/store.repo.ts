import { sql } from 'kysely';
import { queryPrepared, type DatabaseHandle } from '../db/database.ts';
import type { Head } from '../catalog/list-cache.ts';

/** SQL of the storefront's reads; products themselves are read by catalog/products.repo.ts. */

type Reader = Pick<DatabaseHandle, 'db' | 'pool'>;

export interface StoreRow {
  id: string;
  title: string;
  currency: string;
}

export interface StorePageLink {
  id: string;
  title: string;
  url_slug: string;
}

export function findStore(reader: Reader, websiteId: string): Promise<StoreRow | undefined> {
  return reader.db
    .selectFrom('websites')
    .select(['id', 'title', 'currency'])
    .where('id', '=', websiteId)
    .executeTakeFirst();
}

/** The website's enabled store pages, in the order they were made. */
export function enabledStorePages(reader: Reader, websiteId: string): Promise<StorePageLink[]> {
  return reader.db
    .selectFrom('store_pages')
    .select(['id', 'title', 'url_slug'])
    .where('website_id', '=', websiteId)
    .where('is_enabled', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The website's title and its enabled store page at this slug (null when there is none), in one query. */
export async function findStoreAndPage(
  reader: Reader,
  websiteId: string,
  storePageSlug: string,
): Promise<{ title: string; page: StorePageLink | null } | undefined> {
  const query = reader.db
    .selectFrom('websites')
    .leftJoin('store_pages', (join) =>
      join
        .onRef('store_pages.website_id', '=', 'websites.id')
        .on('store_pages.url_slug', '=', storePageSlug)
        .on('store_pages.is_enabled', '=', true),
    )
    .select(['websites.title', 'store_pages.id as page_id', 'store_pages.title as page_title'])
    .where('websites.id', '=', websiteId);
  const [row] = await queryPrepared(reader.pool, query);
  if (!row) return undefined;
  const page = row.page_id ? { id: row.page_id, title: row.page_title!, url_slug: storePageSlug } : null;
  return { title: row.title, page };
}

const version = sql<number>`(extract(epoch FROM products.modified_on) * 1000)::int8`.as('version');

/** The visible product at this address of an enabled store page, at its version: none or one. */
export function shownProductHead(
  reader: Reader,
  websiteId: string,
  storePageSlug: string,
  urlSlug: string,
): Promise<Head[]> {
  const query = reader.db
    .selectFrom('products')
    .innerJoin('store_pages', 'store_pages.id', 'products.store_page_id')
    .select(['products.id', version])
    .where('products.website_id', '=', websiteId)
    .where('store_pages.url_slug', '=', storePageSlug)
    .where('store_pages.is_enabled', '=', true)
    .where('products.url_slug', '=', urlSlug)
    .where('products.is_visible', '=', true);
  return queryPrepared(reader.pool, query);
}

/** A page of a store page's visible products, newest first; `limit` one more than shown. */
export function shownProductPage(
  reader: Reader,
  websiteId: string,
  storePageId: string,
  offset: number,
  limit: number,
): Promise<Head[]> {
  const query = reader.db
    .selectFrom('products')
    .select(['products.id', version])
    .where('products.website_id', '=', websiteId)
    .where('products.store_page_id', '=', storePageId)
    .where('products.is_visible', '=', true)
    .orderBy('products.created_on', 'desc')
    .orderBy('products.id', 'desc')
    .offset(offset)
    .limit(limit);
  return queryPrepared(reader.pool, query);
}
