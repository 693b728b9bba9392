import type { ProductType } from '../db/schema.ts';
import { MethodNotAllowed, NotFound, ValidationError } from '../errors.ts';

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

/** The types whose variants have stock, which inventory shows and adjusts (platform-facts 7). */
export const STOCKED: readonly ProductType[] = ['PHYSICAL', 'SERVICE'];

export function hasVariants(type: ProductType): type is VariantType {
  return type !== 'DIGITAL';
}

/** Types whose variants are told apart by attributes (a gift card's by its price). */
export function hasAttributes(type: ProductType): boolean {
  return type === 'PHYSICAL' || type === 'SERVICE';
}

/** The request fields a variant of each type may carry; any other known field is a 400. */
const VARIANT_FIELDS: Record<VariantType, readonly string[]> = {
  PHYSICAL: ['sku', 'pricing', 'stock', 'attributes', 'shippingMeasurements', 'measurements', 'gtin', 'mpn'],
  SERVICE: ['sku', 'pricing', 'stock', 'attributes'],
  GIFT_CARD: ['sku', 'pricing'],
};
const ANY_VARIANT_FIELD = new Set(Object.values(VARIANT_FIELDS).flat());

/** The product-level request fields that belong to some types only. */
const PRODUCT_FIELDS = new Map<string, readonly ProductType[]>([
  ['variantAttributes', ['PHYSICAL', 'SERVICE']],
  ['variants', ['PHYSICAL', 'SERVICE', 'GIFT_CARD']],
  ['pricing', ['DIGITAL']],
]);

function notOfType(field: string, type: ProductType, what: string): ValidationError {
  return new ValidationError(`${field}: a ${type} product has no ${what}`);
}

/** A product-level field given for a type that does not have it: a 400 naming both. */
export function checkProductFields(
  type: ProductType,
  input: object,
  names: Record<string, string> = {},
): void {
  for (const key of Object.keys(input)) {
    const types = PRODUCT_FIELDS.get(key); // a Map: a body's keys may be `constructor` and the like
    if (types && !types.includes(type) && (input as Record<string, unknown>)[key] !== undefined) {
      const name = Object.hasOwn(names, key) ? names[key]! : key;
      throw notOfType(name, type, key === 'pricing' ? 'product-level pricing; price its variants' : name);
    }
  }
}

/** A variant field of another type (a SERVICE variant's `gtin`, a gift card's `stock`): a 400. */
export function checkVariantFields(type: VariantType, input: object, prefix: string): void {
  const allowed = VARIANT_FIELDS[type];
  for (const key of Object.keys(input)) {
    if (ANY_VARIANT_FIELD.has(key) && !allowed.includes(key)) {
      throw new ValidationError(`${prefix}${key}: a ${type} product's variants have no ${key}`);
    }
  }
  const pricing = (input as { pricing?: object }).pricing;
  if (type === 'GIFT_CARD' && pricing) {
    const extra = Object.keys(pricing).find((key) => key !== 'basePrice');
    if (extra) {
      throw new ValidationError(
        `${prefix}pricing.${extra}: a GIFT_CARD product's variants have a basePrice only`,
      );
    }
  }
}

/** Where a product of another version's type is read: 1.x does not show it (README). */
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
