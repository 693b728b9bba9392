import type { VariantsTable } from '../db/schema.ts';
import { ValidationError } from '../shared/errors.ts';
import type { WebsiteRow } from '../sites/websites.repo.ts';
import { checkUniqueCombinations, checkVariantAttributeNames } from './product-rules.ts';
import {
  checkProductFields,
  checkVariantFields,
  hasAttributes,
  hasVariants,
  type ProductType,
  type VariantType,
} from './product-types.ts';
import type { CreateProductInput, CreateVariant, PricingInputT, SeoOptionsT } from './products.schemas.ts';
import type { CatalogDeps } from './products.service.ts';
import { variantRow } from './variants.service.ts';

/** A variant as any version creates it; `gtin` and `mpn` come with v2. */
export type VariantInput = CreateVariant & { gtin?: string | null; mpn?: string | null };

/** A product as any version creates it (v2's body, 1.1's body with its two types). */
export interface ProductInput extends Omit<
  CreateProductInput,
  'type' | 'variants' | 'pricing' | 'seoOptions'
> {
  type: ProductType;
  variants?: VariantInput[];
  pricing?: PricingInputT;
  seoOptions?: SeoOptionsT | null;
}

const MAX_CREATE_VARIANTS = 100;

/** What a new product of its type must and must not carry; each rule names the field. */
export function checkNewProduct(input: ProductInput): void {
  checkProductFields(input.type, input);
  if (!hasVariants(input.type)) {
    if (!input.pricing)
      throw new ValidationError(`pricing: is required for ${input.type} products`, 'MISSING_ARGUMENT');
    return;
  }
  const variants = input.variants;
  if (!variants)
    throw new ValidationError(`variants: is required for ${input.type} products`, 'MISSING_ARGUMENT');
  if (variants.length < 1 || variants.length > MAX_CREATE_VARIANTS)
    throw new ValidationError(`variants: 1 to ${MAX_CREATE_VARIANTS} items`);
  const type = input.type;
  variants.forEach((v, i) => checkVariantFields(type, v, `variants[${i}].`));
  if (!hasAttributes(type)) return;
  const names = input.variantAttributes ?? [];
  checkVariantAttributeNames(names, 'variantAttributes');
  if (variants.length >= 2 && names.length === 0) {
    throw new ValidationError(
      'variantAttributes: required when a product has two or more variants',
      'MISSING_ARGUMENT',
    );
  }
}

/** The rows of a new product's variants, SKUs distinct and attribute values unique. */
export function variantRows(
  variants: VariantInput[],
  type: VariantType,
  names: string[],
  website: WebsiteRow,
  productId: string,
  deps: Pick<CatalogDeps, 'clock' | 'ids'>,
): VariantsTable[] {
  const skus = new Map<string, number>();
  const rows = variants.map((v, i) => {
    const row = variantRow(v, type, `variants[${i}].`, names, website, productId, i, deps);
    const first = skus.get(row.sku);
    if (first !== undefined)
      throw new ValidationError(`variants[${i}].sku: same SKU as variants[${first}].sku`);
    skus.set(row.sku, i);
    return row;
  });
  if (names.length)
    checkUniqueCombinations(
      variants.map((v) => v.attributes ?? {}),
      names,
      'variants',
    );
  return rows;
}
