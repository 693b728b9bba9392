import type { ProductType } from '../../db/schema.ts';
import {
  productHead,
  toImage,
  toMeasurements,
  toPricing,
  type ProductRow,
  type VariantRow,
} from '../products.mapper.ts';
import type { ProductImageT } from '../products.schemas.ts';
import type { ProductVariantV2T } from './products-v2.schemas.ts';

/**
 * Products v2 as sent (platform-surface 2.5.1): each type with exactly its own fields, every one
 * always present (null when empty), in the order of 1.1's fields (open question 8).
 */

/** A variant as v2 sends it for its product's type. */
export function toVariantV2(
  row: VariantRow,
  type: ProductType,
  image: ProductImageT | null = null,
): ProductVariantV2T {
  const pricing = toPricing(row.currency, row.base_price_minor, row.sale_price_minor, row.on_sale);
  if (type === 'GIFT_CARD') {
    return { id: row.id, sku: row.sku, pricing: { basePrice: pricing.basePrice }, image };
  }
  const stock = { quantity: row.stock_quantity, unlimited: row.stock_unlimited };
  if (type === 'SERVICE') {
    return { id: row.id, sku: row.sku, pricing, stock, attributes: row.attributes, image };
  }
  return {
    id: row.id,
    sku: row.sku,
    pricing,
    stock,
    attributes: row.attributes,
    shippingMeasurements: toMeasurements(row),
    image,
    gtin: row.gtin,
    mpn: row.mpn,
  };
}

export function toProductV2(row: ProductRow, baseUrl: string): object {
  const images = row.images.map((i) => toImage(i, baseUrl));
  const common = productHead(row, baseUrl);
  const dates = {
    seoOptions: row.seo_options,
    createdOn: row.created_on.toISOString(),
    modifiedOn: row.modified_on.toISOString(),
  };
  if (row.type === 'DIGITAL') {
    const pricing = row.currency
      ? toPricing(row.currency, row.base_price_minor ?? 0, row.sale_price_minor ?? 0, row.on_sale ?? false)
      : null;
    return { ...common, images, pricing, digitalGood: row.digital_good, ...dates };
  }
  const variants = row.variants.map((v) =>
    toVariantV2(v, row.type, images.find((i) => i.id === v.image_id) ?? null),
  );
  if (row.type === 'GIFT_CARD') return { ...common, variants, images, ...dates };
  return { ...common, variantAttributes: row.variant_attributes, variants, images, ...dates };
}
