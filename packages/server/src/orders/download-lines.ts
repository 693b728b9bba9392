import { sql } from 'kysely';
import { imageUrl } from '../catalog/products.mapper.ts';
import type { Db } from '../db/database.ts';
import { ValidationError } from '../shared/errors.ts';
import type { OrderLine } from '../shared/order-model.ts';

/**
 * The store's DIGITAL order lines: a download has no variant, so its line names its product
 * (platform-surface 2.1.4: `variantId`, `sku` and `variantOptions` null, measurements 0,
 * `productId` set), priced on the product. A download without its file is not for sale.
 */

interface DigitalProduct {
  id: string;
  type: string;
  name: string;
  has_file: boolean;
  image_id: string | null;
}

/** These products of the website, with whether they have a file and their first image. */
export async function selectDigitalProducts(
  db: Db,
  websiteId: string,
  lines: { lineItemType: string; productId?: string | null }[],
): Promise<Map<string, DigitalProduct>> {
  const ids = lines.flatMap((l) =>
    l.lineItemType === 'DIGITAL' && l.productId && /^[0-9a-f]{24}$/.test(l.productId) ? [l.productId] : [],
  );
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('products as p')
    .select([
      'p.id',
      'p.type',
      'p.name',
      sql<boolean>`p.digital_good IS NOT NULL`.as('has_file'),
      sql<
        string | null
      >`(SELECT i.id FROM images i WHERE i.product_id = p.id ORDER BY i.position LIMIT 1)`.as('image_id'),
    ])
    .where('p.website_id', '=', websiteId)
    .where('p.id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** A DIGITAL line as the order stores it. */
export function digitalLine(
  baseUrl: string,
  draft: {
    productId?: string | null;
    quantity: number;
    unitPricePaidMinor: number;
    customizations: OrderLine['customizations'];
    discountMinor?: number;
  },
  field: string,
  products: Map<string, DigitalProduct>,
): Omit<OrderLine, 'id'> {
  const product = draft.productId ? products.get(draft.productId) : undefined;
  if (!product)
    throw new ValidationError(`${field}.productId: no product ${draft.productId} on this website`);
  if (product.type !== 'DIGITAL') {
    throw new ValidationError(
      `${field}.productId: product ${product.id} is a ${product.type} product; a DIGITAL line sells a DIGITAL product`,
    );
  }
  if (!product.has_file) {
    throw new ValidationError(`${field}.productId: product ${product.id} has no file to download yet`);
  }
  return {
    lineItemType: 'DIGITAL',
    quantity: draft.quantity,
    unitPricePaidMinor: draft.unitPricePaidMinor,
    customizations: draft.customizations,
    ...(draft.discountMinor !== undefined && { discountMinor: draft.discountMinor }),
    variantId: null,
    sku: null,
    productId: product.id,
    productName: product.name,
    weight: 0,
    width: 0,
    length: 0,
    height: 0,
    variantOptions: null,
    imageUrl: product.image_id ? imageUrl(baseUrl, product.image_id) : null,
  };
}
