import type { VariantInput } from '../../catalog/new-product.ts';
import type { MeasurementsInputT } from '../../catalog/products.schemas.ts';
import type { MeasurementStandard } from '../../sites/websites.service.ts';
import type { ShownVariant } from './products.views.ts';
import type { Values } from './product-form.ts';

/**
 * A PHYSICAL variant's GTIN, MPN and shipping measurements on the owner's forms, both ways: the
 * form's fields as the API's input, and a variant as the API shows it as the form's fields. The
 * measurements are in the website's measurement standard, the only units the API takes from it.
 */

/** The measurement fields of a variant form, under its prefix. */
export const MEASURES = ['weight', 'length', 'width', 'height'] as const;

/** The fields of a variant form that only a PHYSICAL variant takes. */
export const PHYSICAL_FIELDS = ['gtin', 'mpn', ...MEASURES] as const;

/** The API's units for a website's standard, and how a form's labels name them. */
export const UNITS: Record<
  MeasurementStandard,
  { weight: 'POUND' | 'KILOGRAM'; dimension: 'INCH' | 'CENTIMETER'; weightWord: string; lengthWord: string }
> = {
  IMPERIAL: { weight: 'POUND', dimension: 'INCH', weightWord: 'lb', lengthWord: 'in' },
  METRIC: { weight: 'KILOGRAM', dimension: 'CENTIMETER', weightWord: 'kg', lengthWord: 'cm' },
};

const text = (values: Values, name: string) => (values[name] ?? '').trim();

/** A measurement field: blank is 0; a decimal number as typed; anything else is left for the schema to refuse. */
function measureOf(values: Values, name: string): number {
  const typed = text(values, name);
  if (typed === '') return 0;
  return /^-?(\d+\.?\d*|\.\d+)$/.test(typed) ? Number(typed) : Number.NaN;
}

/** The measurement fields as the API's shippingMeasurements, in the website's units. */
export function measurementsOf(
  values: Values,
  prefix: string,
  standard: MeasurementStandard,
): MeasurementsInputT {
  const units = UNITS[standard];
  const at = (name: string) => measureOf(values, `${prefix}${name}`);
  return {
    weight: { unit: units.weight, value: at('weight') },
    dimensions: { unit: units.dimension, length: at('length'), width: at('width'), height: at('height') },
  };
}

type PhysicalInput = Pick<VariantInput, 'shippingMeasurements' | 'gtin' | 'mpn'>;

/**
 * The GTIN, MPN and shipping measurements of a variant form. A new variant takes only what was
 * typed, so another type's variant left blank sends none of them; a change sends each the form
 * holds, a blank clearing what is stored (a GTIN or MPN to null, a measurement to 0).
 */
export function physicalOf(
  values: Values,
  prefix: string,
  standard: MeasurementStandard,
  change = false,
): PhysicalInput {
  const input: PhysicalInput = {};
  const sent = (name: string) =>
    change ? values[`${prefix}${name}`] !== undefined : text(values, `${prefix}${name}`) !== '';
  if (MEASURES.some(sent)) input.shippingMeasurements = measurementsOf(values, prefix, standard);
  for (const name of ['gtin', 'mpn'] as const) {
    if (sent(name)) input[name] = text(values, `${prefix}${name}`) || null;
  }
  return input;
}

/** 0 is how the API says a measurement is not set: shown blank, as a blank field sends it. */
const shownMeasure = (value: number | undefined) => (value ? String(value) : '');

/** A PHYSICAL variant's GTIN, MPN and measurements as its form's fields. */
export function physicalValues(variant: ShownVariant): Values {
  const m = variant.shippingMeasurements;
  return {
    gtin: variant.gtin ?? '',
    mpn: variant.mpn ?? '',
    weight: shownMeasure(m?.weight.value),
    length: shownMeasure(m?.dimensions.length),
    width: shownMeasure(m?.dimensions.width),
    height: shownMeasure(m?.dimensions.height),
  };
}
