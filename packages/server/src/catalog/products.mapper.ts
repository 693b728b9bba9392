import type { ImagesTable, ProductsTable, VariantsTable } from '../db/schema.ts';
import { fromMinorUnits } from '../shared/money.ts';
import type { ProductImageT, ProductT, ProductVariantT } from './products.schemas.ts';
import { productUrl } from '../shared/store-urls.ts';

/** A product as the read queries return it: its store page slug and its variants alongside. */
export type ProductRow = Omit<ProductsTable, 'search_text'> & {
  store_page_slug: string;
  variants: VariantRow[];
  images: ImageRow[];
};
export type VariantRow = Omit<VariantsTable, 'created_at'>;
export type ImageRow = Pick<ImagesTable, 'id' | 'position' | 'alt_text' | 'width' | 'height' | 'widths'>;

/** Where an image is served: public, like a CDN; `?format=500w` for a width (api-details 5). */
export function imageUrl(baseUrl: string, imageId: string): string {
  return `${baseUrl}/images/${imageId}`;
}

export function toImage(row: ImageRow, baseUrl: string): ProductImageT {
  return {
    id: row.id,
    altText: row.alt_text,
    orderIndex: row.position,
    url: imageUrl(baseUrl, row.id),
    originalSize: { width: row.width, height: row.height },
    availableFormats: row.widths.map((w) => `${w}w`),
  };
}

export function toPricing(currency: string, base: number, sale: number, onSale: boolean) {
  return { basePrice: fromMinorUnits(base, currency), salePrice: fromMinorUnits(sale, currency), onSale };
}

export function toMeasurements(row: VariantRow) {
  return {
    weight: { unit: row.weight_unit, value: row.weight_value },
    dimensions: { unit: row.dimension_unit, length: row.length, width: row.width, height: row.height },
  };
}

/** Where the product's page is in its website's store (store-urls.ts). */
export function productRowUrl(row: ProductRow, baseUrl: string): string {
  return productUrl(baseUrl, row.website_id, row.store_page_slug, row.url_slug);
}

/** A variant as 1.1 sends it; `image` is the image it shows, from the product's images. */
export function toVariant(row: VariantRow, image: ProductImageT | null = null): ProductVariantT {
  const measurements = toMeasurements(row);
  return {
    id: row.id,
    sku: row.sku,
    attributes: row.attributes,
    image,
    pricing: toPricing(row.currency, row.base_price_minor, row.sale_price_minor, row.on_sale),
    stock: { quantity: row.stock_quantity, unlimited: row.stock_unlimited },
    // The spec names the field `measurements`; real clients read `shippingMeasurements` (api-details 3).
    measurements,
    shippingMeasurements: measurements,
  };
}

/** The fields every version sends first, for every type, in this order. */
export function productHead(row: ProductRow, baseUrl: string) {
  return {
    id: row.id,
    type: row.type,
    storePageId: row.store_page_id,
    name: row.name,
    description: row.description,
    url: productRowUrl(row, baseUrl),
    urlSlug: row.url_slug,
    tags: row.tags,
    isVisible: row.is_visible,
  };
}

/** A product as 1.1 sends it: every key of every type (platform-facts 2.1). */
export function toProduct(row: ProductRow, baseUrl: string): ProductT {
  const images = row.images.map((i) => toImage(i, baseUrl));
  return {
    ...productHead(row, baseUrl),
    type: row.type as ProductT['type'], // 1.1 reads only its own types (product-types.ts)
    variantAttributes: row.variant_attributes,
    variants: row.variants.map((v) => toVariant(v, images.find((i) => i.id === v.image_id) ?? null)),
    images,
    pricing:
      row.type === 'DIGITAL' && row.currency
        ? toPricing(row.currency, row.base_price_minor ?? 0, row.sale_price_minor ?? 0, row.on_sale ?? false)
        : null,
    digitalGood: row.digital_good,
    seoOptions: row.seo_options,
    createdOn: row.created_on.toISOString(),
    modifiedOn: row.modified_on.toISOString(),
  };
}
