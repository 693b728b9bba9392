import type { ProductsTable, VariantsTable } from '../db/schema.ts';
import { fromMinorUnits } from './money.ts';
import type { ProductT, ProductVariantT } from './products.schemas.ts';

/** A product as the read queries return it: its store page slug and its variants alongside. */
export type ProductRow = Omit<ProductsTable, 'search_text'> & {
  store_page_slug: string;
  variants: VariantRow[];
};
export type VariantRow = Omit<VariantsTable, 'created_at'>;

function pricing(currency: string, base: number, sale: number, onSale: boolean) {
  return { basePrice: fromMinorUnits(base, currency), salePrice: fromMinorUnits(sale, currency), onSale };
}

export function toVariant(row: VariantRow): ProductVariantT {
  const measurements = {
    weight: { unit: row.weight_unit, value: row.weight_value },
    dimensions: { unit: row.dimension_unit, length: row.length, width: row.width, height: row.height },
  };
  return {
    id: row.id,
    sku: row.sku,
    attributes: row.attributes,
    image: null,
    pricing: pricing(row.currency, row.base_price_minor, row.sale_price_minor, row.on_sale),
    stock: { quantity: row.stock_quantity, unlimited: row.stock_unlimited },
    // The spec names the field `measurements`; real clients read `shippingMeasurements` (api-details 3).
    measurements,
    shippingMeasurements: measurements,
  };
}

export function toProduct(row: ProductRow, baseUrl: string): ProductT {
  return {
    id: row.id,
    type: row.type,
    storePageId: row.store_page_id,
    name: row.name,
    description: row.description,
    url: `${baseUrl}/${row.store_page_slug}/p/${row.url_slug}`,
    urlSlug: row.url_slug,
    tags: row.tags,
    isVisible: row.is_visible,
    variantAttributes: row.variant_attributes,
    variants: row.variants.map(toVariant),
    images: [],
    pricing:
      row.type === 'DIGITAL' && row.currency
        ? pricing(row.currency, row.base_price_minor ?? 0, row.sale_price_minor ?? 0, row.on_sale ?? false)
        : null,
    digitalGood: row.digital_good,
    seoOptions: row.seo_options,
    createdOn: row.created_on.toISOString(),
    modifiedOn: row.modified_on.toISOString(),
  };
}
