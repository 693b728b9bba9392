import type { ProductType } from '../db/schema.ts';
import { MethodNotAllowed, NotFound, ValidationError } from '../shared/errors.ts';

/**
 * What each product type carries (platform-surface 2.5.1) and which API version serves it: the
 * one place these rules live, for every version's routes and services.
 */

export type { ProductType };
export const PRODUCT_TYPES: readonly ProductType[] = ['PHYSICAL', 'SERVICE', 'GIFT_CARD', 'DIGITAL'];

/** The products APIs: 1.1 (and its alias 1.0) and v2, over the same store. */
export type ApiVersion = '1.1' | 'v2';

/** 1.x knows PHYSICAL and DIGITAL products only; the others do not exist there. */
export const SERVED: Record<ApiVersion, readonly ProductType[]> = {
  '1.1': ['PHYSICAL', 'DIGITAL'],
  v2: PRODUCT_TYPES,
};

/** The types a version's reads are limited to; none when it serves every type. */
export function servedTypes(api: ApiVersion): readonly ProductType[] | undefined {
  return SERVED[api].length === PRODUCT_TYPES.length ? undefined : SERVED[api];
}

export type VariantType = Exclude<ProductType, 'DIGITAL'>;

/**
 * The request fields each type takes that not every type does (platform-surface 2.5.1, 2.5.4,
 * 2.5.5, 2.5.8): on the product, and on its variants (`pricing.x` inside a variant's pricing).
 * Fields every type takes (name, tags, a variant's sku and pricing.basePrice) are not listed. The
 * one table that creates and updates of products and variants, through either version, are
 * checked against, and that says which types have variants, attributes and stock.
 */
type Part = 'product' | 'variant';
const TYPE_FIELDS: Record<ProductType, Record<Part, readonly string[]>> = {
  PHYSICAL: {
    // productAttributeNames: v2's generated schema's name for variantAttributes (open question 1).
    product: ['variantAttributes', 'productAttributeNames', 'variants'],
    variant: [
      'stock',
      'attributes',
      'shippingMeasurements',
      'measurements',
      'gtin',
      'mpn',
      'pricing.salePrice',
      'pricing.onSale',
    ],
  },
  SERVICE: {
    product: ['variantAttributes', 'productAttributeNames', 'variants'],
    variant: ['stock', 'attributes', 'pricing.salePrice', 'pricing.onSale'],
  },
  GIFT_CARD: { product: ['variants'], variant: [] },
  DIGITAL: { product: ['pricing', 'digitalGood'], variant: [] },
};

/** Every field of a part that some type takes: another field is no type's business. */
const TYPED: Record<Part, ReadonlySet<string>> = {
  product: new Set(PRODUCT_TYPES.flatMap((type) => TYPE_FIELDS[type].product)),
  variant: new Set(PRODUCT_TYPES.flatMap((type) => TYPE_FIELDS[type].variant)),
};

export function hasVariants(type: ProductType): type is VariantType {
  return TYPE_FIELDS[type].product.includes('variants');
}

/** Types whose variants are told apart by attributes (a gift card's by its price). */
export function hasAttributes(type: ProductType): boolean {
  return TYPE_FIELDS[type].product.includes('variantAttributes');
}

/** The types whose variants have stock, which inventory shows and adjusts (platform-facts 7). */
export const STOCKED: readonly ProductType[] = PRODUCT_TYPES.filter((type) =>
  TYPE_FIELDS[type].variant.includes('stock'),
);

/** The first field given (not undefined), a level down too, that some type takes and `type` does not. */
function otherTypesField(type: ProductType, part: Part, input: object): string | undefined {
  const given = (object: object, prefix: string): string[] =>
    Object.entries(object).flatMap(([key, value]) => {
      if (value === undefined) return [];
      const nested = !prefix && value !== null && typeof value === 'object' && !Array.isArray(value);
      return [prefix + key, ...(nested ? given(value as object, `${key}.`) : [])];
    });
  const own = TYPE_FIELDS[type][part];
  return given(input, '').find((field) => TYPED[part].has(field) && !own.includes(field));
}

/** A product-level field of another type (a PHYSICAL product's digitalGood): a 400 naming both. */
export function checkProductFields(
  type: ProductType,
  input: object,
  /** The names the client used for fields, where its version's differ (v2's productAttributeNames). */
  names: Record<string, string> = {},
): void {
  const field = otherTypesField(type, 'product', input);
  if (field === undefined) return;
  const name = Object.hasOwn(names, field) ? names[field]! : field;
  const what = field === 'pricing' ? 'product-level pricing; price its variants' : name;
  throw new ValidationError(`${name}: a ${type} product has no ${what}`);
}

/** A variant field of another type (a SERVICE variant's `gtin`, a gift card's `stock`): a 400. */
export function checkVariantFields(type: VariantType, input: object, prefix: string): void {
  const field = otherTypesField(type, 'variant', input);
  if (field === undefined) return;
  // Only a gift card lacks a field inside pricing: its variants' pricing is a basePrice alone.
  const what = field.includes('.') ? 'a basePrice only' : `no ${field}`;
  throw new ValidationError(`${prefix}${field}: a ${type} product's variants have ${what}`);
}

/** Where a product of another version's type is read: 1.x does not show it (docs/products.md). */
function elsewhere(id: string, type: ProductType, version: ApiVersion): string {
  return `product ${id} is a ${type} product, which API version ${version} does not serve; use /v2/commerce/products`;
}

/** A read through a version that does not know the product's type: as if it did not exist. */
export function notShown(id: string, type: ProductType, version: ApiVersion): NotFound {
  return new NotFound(elsewhere(id, type, version));
}

/** A write through a version that does not know the product's type. */
export function checkServed(product: { id: string; type: ProductType }, version: ApiVersion): void {
  if (!SERVED[version].includes(product.type)) {
    throw new MethodNotAllowed(
      elsewhere(product.id, product.type, version),
      [],
      'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );
  }
}

/**
 * A product created or deleted through a version: of a type it serves, and not a download through
 * v2, which "cannot be created or deleted via v2 API" (platform-surface 2.5).
 */
export function checkCreateOrDelete(product: { id: string; type: ProductType }, api: ApiVersion): void {
  checkServed(product, api);
  if (api === 'v2' && product.type === 'DIGITAL') {
    throw new MethodNotAllowed(
      'type: DIGITAL is not a supported product type for this operation: download products cannot be created or deleted through v2',
      [],
      'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );
  }
}

/** Variant endpoints on a DIGITAL product (platform-surface 2.5.8, open question 9). */
export function checkHasVariants(product: { type: ProductType }): asserts product is { type: VariantType } {
  if (!hasVariants(product.type)) {
    throw new MethodNotAllowed(
      'The Product requested does not support variants: a DIGITAL product has none',
      [],
      'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );
  }
}

/** GTIN and MPN: compared after removing whitespace, `-` and `_` (platform-surface 2.5.8). */
function stripped(value: string): string {
  return value.replace(/[\s_-]/g, '');
}

export function normalizeGtin(value: string | null | undefined, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (!/^(\d{8}|\d{12}|\d{13}|\d{14})$/.test(stripped(value))) {
    throw new ValidationError(`${field}: a GTIN has 8, 12, 13 or 14 digits (spaces, - and _ aside)`);
  }
  return value.trim();
}

export const MAX_MPN = 70;

export function normalizeMpn(value: string | null | undefined, field: string): string | null {
  if (value === null || value === undefined) return null;
  const core = stripped(value);
  if (!/^[A-Za-z0-9]+$/.test(core) || core.length > MAX_MPN) {
    throw new ValidationError(
      `${field}: an MPN is 1 to ${MAX_MPN} letters and digits (spaces, - and _ aside)`,
    );
  }
  return value.trim();
}
