import { STOCKED, type ProductType } from '../../catalog/product-types.ts';
import type { MeasurementStandard } from '../../sites/websites.service.ts';
import { csrfInput } from '../../pages/forms.ts';
import { html, type Html } from '../../pages/html.ts';
import { formNotice, select, stateOf, textField } from './product-fields.ts';
import type { FormError } from './product-form.ts';
import { priceFields, stockFields, type ShownProduct, type ShownVariant } from './products.views.ts';
import { attributeFields, physicalFields } from './variant-fields.views.ts';
import { physicalValues } from './variant-input.ts';

/**
 * A product's variants on its page: a card for each (its fields, the image it shows, its stock,
 * its removal), each a form of its own, and the form adding one.
 */

/** What the variant forms need of their page. */
export interface VariantPage {
  /** The product's page. */
  base: string;
  product: ShownProduct;
  csrf: string;
  /** A fresh idempotency key for each stock form, so a form sent twice adjusts once. */
  stockKey: () => string;
  error?: FormError;
  /** The website's measurement standard, whose units the measurements are in. */
  standard: MeasurementStandard;
}

const blankZero = (value: string | undefined) => (value && Number(value) !== 0 ? value : '');

/** A pricing as its form's fields: a sale price of 0 (none) blank. */
export function pricingValues(pricing: ShownVariant['pricing'] | null | undefined, prefix = '') {
  return {
    [`${prefix}price`]: pricing?.basePrice.value ?? '',
    [`${prefix}salePrice`]: blankZero(pricing?.salePrice?.value),
    [`${prefix}onSale`]: pricing?.onSale ? 'on' : '',
  };
}

/** "Image 2: a red mug": an image by its place among the product's, as the image list numbers them. */
function imageChoices(product: ShownProduct) {
  return [
    { value: '', label: 'None' },
    ...product.images.map((image, i) => ({
      value: image.id,
      label: `Image ${i + 1}${image.altText ? `: ${image.altText}` : ''}`,
    })),
  ];
}

/** The image the variant shows: none or one of the product's, through the API's variant image service. */
function imageForm(page: VariantPage, variant: ShownVariant, url: string): Html {
  const state = stateOf(`variant-image-${variant.id}`, { imageId: variant.image?.id ?? '' }, page.error);
  if (page.product.images.length === 0 && !state.error) {
    return html`<p class="meta">No images to show on this variant yet; add them under Images.</p>`;
  }
  return html`<form
    class="stack"
    method="post"
    action="${url}/image"
    novalidate
    aria-label="Image of ${variant.sku}"
  >
    ${csrfInput(page.csrf)} ${formNotice(state)}
    ${select(state, 'imageId', 'Image shown', imageChoices(page.product))}
    <div class="actions"><button class="secondary">Save image</button></div>
  </form>`;
}

function stockForm(page: VariantPage, variant: ShownVariant, url: string): Html {
  if (!variant.stock) return html``;
  const stock = stateOf(
    `stock-${variant.id}`,
    { mode: 'set', quantity: '', key: page.stockKey() },
    page.error,
  );
  return html`<form
    class="stack"
    method="post"
    action="${url}/stock"
    novalidate
    aria-label="Stock of ${variant.sku}"
  >
    ${csrfInput(page.csrf)}<input type="hidden" name="key" value="${stock.values.key}" />
    ${formNotice(stock)}
    <p>In stock: <strong>${variant.stock.unlimited ? 'unlimited' : variant.stock.quantity}</strong></p>
    ${select(stock, 'mode', 'Change', [
      { value: 'set', label: 'Set to' },
      { value: 'add', label: 'Add' },
      { value: 'remove', label: 'Take away' },
      { value: 'unlimited', label: 'Make unlimited' },
    ])}
    ${textField(stock, 'quantity', 'Quantity', { inputmode: 'numeric' })}
    <div class="actions"><button class="secondary">Update stock</button></div>
  </form>`;
}

export function variantCard(page: VariantPage, variant: ShownVariant): Html {
  const { product } = page;
  const names = product.variantAttributes ?? [];
  const url = `${page.base}/variants/${variant.id}`;
  const physical = product.type === 'PHYSICAL';
  const values = Object.fromEntries(names.map((n, j) => [`attr${j}`, variant.attributes?.[n] ?? '']));
  const state = stateOf(
    'variant-' + variant.id,
    {
      sku: variant.sku,
      ...pricingValues(variant.pricing),
      ...values,
      ...(physical && physicalValues(variant)),
    },
    page.error,
  );
  const options = names.map((n) => variant.attributes?.[n]).filter(Boolean);
  const title = options.length ? `${variant.sku} (${options.join(', ')})` : variant.sku;
  const headingId = `variant-${variant.id}`;
  return html`<section class="card" aria-labelledby="${headingId}">
    <h3 id="${headingId}">${title}</h3>
    <form class="stack" method="post" action="${url}" novalidate aria-label="Variant ${variant.sku}">
      ${csrfInput(page.csrf)} ${formNotice(state)} ${textField(state, 'sku', 'SKU')}
      ${priceFields(state, '', product.type === 'GIFT_CARD')} ${attributeFields(state, names)}
      ${physical ? physicalFields(state, '', page.standard) : ''}
      <div class="actions"><button>Save variant</button></div>
    </form>
    ${imageForm(page, variant, url)} ${stockForm(page, variant, url)}
    <form method="post" action="${url}/delete">
      ${csrfInput(page.csrf)}
      <button class="danger" aria-label="Remove variant ${variant.sku}">Remove variant</button>
    </form>
  </section>`;
}

export function newVariantForm(page: VariantPage): Html {
  const { product } = page;
  const names = product.variantAttributes ?? [];
  const state = stateOf('new-variant', {}, page.error);
  return html`<form
    class="stack"
    method="post"
    action="${page.base}/variants"
    novalidate
    aria-labelledby="add-variant"
  >
    ${csrfInput(page.csrf)} ${formNotice(state)} ${textField(state, 'sku', 'SKU')}
    ${priceFields(state, '', product.type === 'GIFT_CARD')}
    ${STOCKED.includes(product.type as ProductType) ? stockFields(state, '') : ''}
    ${attributeFields(state, names)}
    ${product.type === 'PHYSICAL' ? physicalFields(state, '', page.standard) : ''}
    <div class="actions"><button>Add variant</button></div>
  </form>`;
}
