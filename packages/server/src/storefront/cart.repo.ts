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
