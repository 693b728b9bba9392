import type { MeasurementStandard } from '../../sites/websites.service.ts';
import { html, type Html } from '../../pages/html.ts';
import { fieldGroup, textField, type FormState } from './product-fields.ts';
import { UNITS } from './variant-input.ts';

/** The groups of a variant's fields that not every type takes: its option values, and a PHYSICAL one's GTIN, MPN and measurements. */

/** A variant's value of each option name (`attr0`, `attr1`, ... in the product's order). */
export function attributeFields(state: FormState, names: string[]): Html {
  if (names.length === 0) return html``;
  return fieldGroup(
    state,
    'attributes',
    'Options',
    html`${names.map((name, j) => textField(state, `attr${j}`, name))}`,
  );
}

/**
 * GTIN, MPN and shipping measurements, under a prefix, each measurement labelled with the unit of
 * the website's standard. `note`: which products take them, where the form does not know the type.
 */
export function physicalFields(
  state: FormState,
  prefix: string,
  standard: MeasurementStandard,
  note = '',
): Html {
  const { weightWord, lengthWord } = UNITS[standard];
  const measure = (name: string, label: string) =>
    textField(state, `${prefix}${name}`, label, { inputmode: 'decimal' });
  return html`${textField(state, `${prefix}gtin`, 'GTIN', {
    hint: `${note}the barcode number (UPC, EAN or ISBN): 8, 12, 13 or 14 digits; blank for none`,
  })}
  ${textField(state, `${prefix}mpn`, 'MPN', {
    hint: `${note}the manufacturer's part number: letters and digits; blank for none`,
  })}
  ${fieldGroup(
    state,
    `${prefix}measurements`,
    'Shipping measurements',
    html`${measure('weight', `Weight (${weightWord})`)} ${measure('length', `Length (${lengthWord})`)}
    ${measure('width', `Width (${lengthWord})`)} ${measure('height', `Height (${lengthWord})`)}`,
    `${note}such as 1.5; blank is 0`,
  )}`;
}
