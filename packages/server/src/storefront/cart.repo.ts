import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** SQL of the storefront's cart: what the catalog says of the variants in a cart. */

export interface CartVariant {
  id: string;
  product_id: string;
  product_name: string;
  product_type: string;
  /** Visible and on an enabled store page: the store shows and sells it. */
  for_sale: boolean;
  url_slug: string;
  store_page_slug: string;
  variant_attributes: string[];
  attributes: Record<string, string>;
  base_price_minor: number;
  sale_price_minor: number;
  on_sale: boolean;
  stock_quantity: number;
  stock_unlimited: boolean;
}

/** These variants of the website (`ids` are UUIDs) with their product; unknown ids are left out. */
export function selectCartVariants(db: Db, websiteId: string, ids: string[]): Promise<CartVariant[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('variants as v')
    .innerJoin('products as p', 'p.id', 'v.product_id')
    .innerJoin('store_pages as sp', 'sp.id', 'p.store_page_id')
    .select([
      'v.id',
      'v.product_id',
      'p.name as product_name',
      'p.type as product_type',
      sql<boolean>`p.is_visible AND sp.is_enabled`.as('for_sale'),
      'p.url_slug',
      'sp.url_slug as store_page_slug',
      'p.variant_attributes',
      'v.attributes',
      'v.base_price_minor',
      'v.sale_price_minor',
      'v.on_sale',
      'v.stock_quantity',
      'v.stock_unlimited',
    ])
    .where('v.website_id', '=', websiteId)
    .where(sql<boolean>`v.id = any(${ids}::uuid[])`)
    .execute();
}

/** A product sold without variants (a download), as the cart reads it. */
export interface CartProduct {
  id: string;
  product_name: string;
  product_type: string;
  /** Visible, on an enabled store page and with its file: the store sells it. */
  for_sale: boolean;
  url_slug: string;
  store_page_slug: string;
  base_price_minor: number;
  sale_price_minor: number;
  on_sale: boolean;
}

/**
 * These products of the website, when sold on their own with their price on the product (a
 * DIGITAL product); unknown ids, and products of other types, are left out.
 */
export function selectCartProducts(db: Db, websiteId: string, ids: string[]): Promise<CartProduct[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('products as p')
    .innerJoin('store_pages as sp', 'sp.id', 'p.store_page_id')
    .select([
      'p.id',
      'p.name as product_name',
      'p.type as product_type',
      // A download without its file has nothing to sell yet.
      sql<boolean>`p.is_visible AND sp.is_enabled AND p.digital_good IS NOT NULL`.as('for_sale'),
      'p.url_slug',
      'sp.url_slug as store_page_slug',
      sql<number>`coalesce(p.base_price_minor, 0)`.as('base_price_minor'),
      sql<number>`coalesce(p.sale_price_minor, 0)`.as('sale_price_minor'),
      sql<boolean>`coalesce(p.on_sale, false)`.as('on_sale'),
    ])
    .where('p.website_id', '=', websiteId)
    .where('p.type', '=', 'DIGITAL')
    .where('p.id', 'in', ids)
    .execute();
}
