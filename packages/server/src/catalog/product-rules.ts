import { isDeepStrictEqual } from 'node:util';
import type { VariantsTable } from '../db/schema.ts';
import { ValidationError } from '../shared/errors.ts';
import type { MeasurementStandard } from '../sites/websites.service.ts';
import { toMinorUnits } from '../shared/money.ts';
import type { MeasurementsInputT, PricingInputT } from './products.schemas.ts';
import { SLUG } from '../shared/slug.ts';

/** The rules a product or variant input must meet, each naming the field it checks (api-details 1). */

export const MAX_SKU = 60;
export const MAX_VARIANT_ATTRIBUTES = 6;

export type PricingColumns = Pick<
  VariantsTable,
  'currency' | 'base_price_minor' | 'sale_price_minor' | 'on_sale'
>;

export function pricingColumns(input: PricingInputT, currency: string, field: string): PricingColumns {
  if (input.onSale && !input.salePrice) {
    throw new ValidationError(`${field}.salePrice: is required when onSale is true`, 'MISSING_ARGUMENT');
  }
  return {
    currency,
    base_price_minor: toMinorUnits(input.basePrice, currency, `${field}.basePrice`),
    sale_price_minor: input.salePrice ? toMinorUnits(input.salePrice, currency, `${field}.salePrice`) : 0,
    on_sale: input.onSale ?? false,
  };
}

const UNITS: Record<MeasurementStandard, { weight: string; dimension: string }> = {
  IMPERIAL: { weight: 'POUND', dimension: 'INCH' },
  METRIC: { weight: 'KILOGRAM', dimension: 'CENTIMETER' },
};

export type MeasurementColumns = Pick<
  VariantsTable,
  'weight_unit' | 'weight_value' | 'dimension_unit' | 'length' | 'width' | 'height'
>;

/** Accepts `measurements` or `shippingMeasurements` (both: they must agree); units must fit the website. */
export function measurementColumns(
  input: { measurements?: MeasurementsInputT; shippingMeasurements?: MeasurementsInputT },
  standard: MeasurementStandard,
  /** Where the fields sit in the body: `variants[0].`, or '' at the top level. */
  prefix: string,
): MeasurementColumns {
  if (
    input.measurements &&
    input.shippingMeasurements &&
    !isDeepStrictEqual(input.measurements, input.shippingMeasurements)
  ) {
    throw new ValidationError(
      `${prefix}shippingMeasurements: differs from ${prefix}measurements; send one of them`,
    );
  }
  const m = input.measurements ?? input.shippingMeasurements ?? {};
  const units = UNITS[standard];
  const mismatch = (what: string, unit: string) =>
    new ValidationError(
      `${prefix}measurements.${what}.unit: ${unit} does not fit the website's ${standard} measurement standard`,
      'MEASUREMENT_STANDARD_MISMATCH',
    );
  if (m.weight && m.weight.unit !== units.weight) throw mismatch('weight', m.weight.unit);
  if (m.dimensions && m.dimensions.unit !== units.dimension) throw mismatch('dimensions', m.dimensions.unit);
  return {
    weight_unit: units.weight,
    weight_value: m.weight?.value ?? 0,
    dimension_unit: units.dimension,
    length: m.dimensions?.length ?? 0,
    width: m.dimensions?.width ?? 0,
    height: m.dimensions?.height ?? 0,
  };
}

/** SKUs are trimmed, then 1 to 60 characters (spec: sku). */
export function normalizeSku(sku: string, field: string): string {
  const trimmed = sku.trim();
  if (!trimmed) throw new ValidationError(`${field}: must not be empty`, 'MISSING_ARGUMENT');
  if (trimmed.length > MAX_SKU) throw new ValidationError(`${field}: at most ${MAX_SKU} characters`);
  return trimmed;
}

export function checkVariantAttributeNames(names: string[], field: string): void {
  if (names.length > MAX_VARIANT_ATTRIBUTES)
    throw new ValidationError(`${field}: at most ${MAX_VARIANT_ATTRIBUTES} names`);
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (seen.has(name)) throw new ValidationError(`${field}[${i}]: "${name}" is listed twice`);
    seen.add(name);
  });
}

/** A variant's attribute keys must be exactly the product's variantAttributes. */
export function checkAttributes(attributes: Record<string, string>, names: string[], field: string): void {
  const keys = Object.keys(attributes);
  const missing = names.filter((n) => !(n in attributes));
  const extra = keys.filter((k) => !names.includes(k));
  if (extra.length) {
    throw new ValidationError(
      `${field}: "${extra[0]}" is not one of the product's variantAttributes [${names.join(', ')}]`,
    );
  }
  if (missing.length)
    throw new ValidationError(`${field}: needs a value for "${missing[0]}"`, 'MISSING_ARGUMENT');
}

/** Whether two variants have the same values for the product's attribute names. */
export function sameAttributes(
  a: Record<string, string>,
  b: Record<string, string>,
  names: string[],
): boolean {
  return names.every((n) => (a[n] ?? '') === (b[n] ?? ''));
}

/** No two variants of a product may share the same attribute values. */
export function checkUniqueCombinations(
  list: Record<string, string>[],
  names: string[],
  field: string,
): void {
  const seen = new Map<string, number>();
  list.forEach((attributes, i) => {
    const key = JSON.stringify(names.map((n) => attributes[n] ?? ''));
    const first = seen.get(key);
    if (first !== undefined) {
      throw new ValidationError(`${field}[${i}].attributes: same values as ${field}[${first}].attributes`);
    }
    seen.set(key, i);
  });
}

export function normalizeUrlSlug(slug: string): string {
  const lower = slug.toLowerCase();
  if (!SLUG.test(lower)) {
    throw new ValidationError('urlSlug: only letters, digits and single hyphens between them');
  }
  return lower;
}

export function searchText(parts: {
  name: string;
  descriptionText: string;
  tags: string[];
  skus: string[];
}): string {
  return [parts.name, parts.descriptionText, parts.tags.join(' '), parts.skus.join(' ')]
    .join(' ')
    .toLowerCase();
}
