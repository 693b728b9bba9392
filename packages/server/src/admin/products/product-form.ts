import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { ProductType } from '../../catalog/product-types.ts';
import { hasAttributes, hasVariants, PRODUCT_TYPES, STOCKED } from '../../catalog/product-types.ts';
import type { ProductInput, VariantInput } from '../../catalog/new-product.ts';
import type { PricingInputT } from '../../catalog/products.schemas.ts';
import { ValidationError } from '../../shared/errors.ts';
import { validationMessage } from '../../http/validation-message.ts';
import type { Form } from '../../pages/forms.ts';
import type { MeasurementStandard } from '../../sites/websites.service.ts';
import { physicalOf, PHYSICAL_FIELDS } from './variant-input.ts';

/**
 * The owner's product forms turned into the API's inputs. The API's own request schemas check
 * them first (the limits the API's routes enforce before their services), then the same services
 * apply every other rule; each message names the API's field, which fieldOf() places on the form.
 */

/** A form's fields by name, as typed, for showing a refused form again. */
export type Values = Record<string, string>;

/** A refusal to show beside the form that caused it: the field it names, or the form itself. */
export interface FormError {
  /** Which form on the page failed (the edit page has several). */
  form: string;
  /** The form field the message belongs to; '' for the whole form. */
  field: string;
  message: string;
  values: Values;
}

/** The schema check of an API route, for an input built from a form. */
export function checkSchema(schema: TSchema, value: unknown, context = 'body'): void {
  const errors = [...Value.Errors(schema, value)];
  if (errors.length === 0) return;
  const { message } = validationMessage(errors as unknown as FastifySchemaValidationError[], context);
  throw new ValidationError(message);
}

/** Every field of a posted form as one string each (a repeated one: its first value). */
export function valuesOf(form: unknown): Values {
  const values: Values = {};
  for (const [name, value] of Object.entries((form ?? {}) as Form)) {
    if (name === 'csrf') continue;
    values[name] = Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
  }
  return values;
}

/** `Size, Colour` as a list of names; empty entries dropped. */
export function nameList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const checked = (values: Values, name: string) => values[name] === 'on';

/** A price form's fields (`price`, `salePrice`, `onSale`, under a prefix) as the API's pricing. */
export function pricingOf(values: Values, prefix: string, currency: string, giftCard = false): PricingInputT {
  const sale = (values[`${prefix}salePrice`] ?? '').trim();
  return {
    basePrice: { currency, value: (values[`${prefix}price`] ?? '').trim() },
    ...(sale && { salePrice: { currency, value: sale } }),
    ...(!giftCard && { onSale: checked(values, `${prefix}onSale`) }),
  };
}

/** A stock field: blank is none; anything but digits is left for the schema to refuse. */
export function stockOf(values: Values, prefix: string): { quantity?: number; unlimited?: boolean } {
  if (checked(values, `${prefix}unlimited`)) return { unlimited: true };
  const text = (values[`${prefix}stock`] ?? '').trim();
  return { quantity: text === '' ? 0 : /^\d+$/.test(text) ? Number(text) : Number.NaN };
}

/** What the product forms need of the website: its currency and its measurement standard. */
export interface SiteUnits {
  currency: string;
  measurement_standard: MeasurementStandard;
}

/**
 * A variant row of a form: `v0.sku`, `v0.price`, ..., its option values in `v0.options`, its GTIN,
 * MPN and measurements (`v0.gtin`, `v0.weight`, ...) when typed, for the service to refuse if the
 * type takes none.
 */
function variantOf(values: Values, i: number, type: ProductType, names: string[], site: SiteUnits) {
  const prefix = `v${i}.`;
  const input: VariantInput = {
    sku: values[`${prefix}sku`] ?? '',
    pricing: pricingOf(values, prefix, site.currency, type === 'GIFT_CARD'),
    ...physicalOf(values, prefix, site.measurement_standard),
  };
  if (STOCKED.includes(type)) input.stock = stockOf(values, prefix);
  if (hasAttributes(type) && names.length) {
    const options = nameList(values[`${prefix}options`] ?? '');
    if (options.length !== names.length) {
      throw new ValidationError(
        `variants[${i}].attributes: ${names.length} value${names.length === 1 ? '' : 's'}, one for each option name (${names.join(', ')}), separated by commas`,
      );
    }
    input.attributes = Object.fromEntries(names.map((name, j) => [name, options[j]!]));
  }
  return input;
}

/** How many variant rows the new-product form shows (at least one). */
export function rowCount(values: Values): number {
  const n = Number(values.rows);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : 1;
}

/**
 * The new-product form as createProduct's input. A DIGITAL product takes the first row's price.
 * A blank address is left to the service to make from the name; no tags are none.
 */
export function newProductInput(values: Values, site: SiteUnits): ProductInput {
  const type = values.type as ProductType;
  if (!PRODUCT_TYPES.includes(type)) throw new ValidationError('type: choose a product type');
  const names = hasAttributes(type) ? nameList(values.variantAttributes ?? '') : [];
  const input: ProductInput = {
    type,
    storePageId: values.storePageId ?? '',
    name: (values.name ?? '').trim(),
    description: values.description ?? '',
    isVisible: checked(values, 'isVisible'),
    seoOptions: seoOf(values),
  };
  const slug = (values.urlSlug ?? '').trim();
  if (slug) input.urlSlug = slug;
  const tags = nameList(values.tags ?? '');
  if (tags.length) input.tags = tags;
  if (names.length) input.variantAttributes = names;
  if (!hasVariants(type)) {
    input.pricing = pricingOf(values, 'v0.', site.currency);
    return input;
  }
  input.variants = variantRows(values).map((i) => variantOf(values, i, type, names, site));
  return input;
}

/** SEO title and description; both blank is none. */
export function seoOf(values: Values): { title: string | null; description: string | null } | null {
  const title = (values.seoTitle ?? '').trim();
  const description = (values.seoDescription ?? '').trim();
  return title || description ? { title: title || null, description: description || null } : null;
}

/**
 * The form field of an API field path: `variants[1].pricing.basePrice.value` is `v1.price` (the
 * row of the second variant, when blank rows were skipped). `pricingAt`: where a product-level
 * price sits on the form (a DIGITAL product's, in the first row of the new-product form).
 */
function fieldOf(path: string, rows: number[] = [], pricingAt = ''): string {
  const variant = /^variants\[(\d+)\]\.?(.*)$/.exec(path);
  const prefix = variant
    ? `v${rows[Number(variant[1])] ?? Number(variant[1])}.`
    : /^pricing/.test(path)
      ? pricingAt
      : '';
  const rest = variant ? variant[2]! : path;
  const rules: [RegExp, string][] = [
    [/^sku/, 'sku'],
    [/^pricing\.salePrice/, 'salePrice'],
    [/^pricing\.onSale/, 'onSale'],
    [/^pricing/, 'price'],
    [/^stock/, 'stock'],
    [/^(shippingM|m)easurements\.weight/, 'weight'],
    [/^(shippingM|m)easurements\.dimensions\.length/, 'length'],
    [/^(shippingM|m)easurements\.dimensions\.width/, 'width'],
    [/^(shippingM|m)easurements\.dimensions\.height/, 'height'],
    // A unit, or the group another type's variant does not take: the fieldset's message.
    [/^(shippingM|m)easurements/, 'measurements'],
    [/^attributes/, variant ? 'options' : 'attributes'],
    [/^\w+Operations\[\d+\]\.quantity/, 'quantity'],
    [/^seoOptions\.title/, 'seoTitle'],
    [/^seoOptions/, 'seoDescription'],
    [
      /^(name|description|variantAttributes|storePageId|urlSlug|tags|type|altText|quantity|mode|gtin|mpn|imageId)\b/,
      '',
    ],
  ];
  for (const [pattern, name] of rules) {
    if (pattern.test(rest)) return prefix + (name || /^\w+/.exec(rest)![0]);
  }
  return '';
}

/** The refusal as a form error: the field its message names, and the message without the path. */
export function formError(
  form: string,
  error: Error,
  values: Values,
  place: { rows?: number[]; pricingAt?: string } = {},
): FormError {
  const match = /^([\w.[\]"-]+): (.*)$/s.exec(error.message);
  const at = match ? fieldOf(match[1]!, place.rows, place.pricingAt) : '';
  return { form, field: at, message: at ? match![2]! : error.message, values };
}

/** The indexes of the form rows that became variants, in order (see newProductInput). */
export function variantRows(values: Values): number[] {
  return Array.from({ length: rowCount(values) }, (_, i) => i).filter(
    (i) =>
      i === 0 ||
      ['sku', 'price', 'salePrice', 'stock', 'options', ...PHYSICAL_FIELDS].some((f) =>
        values[`v${i}.${f}`]?.trim(),
      ),
  );
}
