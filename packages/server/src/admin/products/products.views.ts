import type { Money } from '../../shared/money.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { checkbox, formNotice, select, textArea, textField, type FormState } from './product-fields.ts';
import { PRODUCT_TYPES } from '../../catalog/product-types.ts';
import { rowCount } from './product-form.ts';
import { physicalFields } from './variant-fields.views.ts';
import { csrfInput } from '../../pages/forms.ts';

/** The owner's product grid, the new-product form and the delete confirmation. */

export interface ShownImage {
  id: string;
  altText: string;
  orderIndex: number;
  availableFormats: string[];
}

export interface ShownVariant {
  id: string;
  sku: string;
  pricing: { basePrice: Money; salePrice?: Money; onSale?: boolean };
  stock?: { quantity: number; unlimited: boolean };
  attributes?: Record<string, string>;
  /** The image it shows, one of its product's; every type's variant has it. */
  image?: ShownImage | null;
  /** A PHYSICAL variant's only. */
  shippingMeasurements?: {
    weight: { unit: string; value: number };
    dimensions: { unit: string; length: number; width: number; height: number };
  };
  gtin?: string | null;
  mpn?: string | null;
}

/** A product as the v2 API answers it: what these pages show of every type. */
export interface ShownProduct {
  id: string;
  type: string;
  storePageId: string;
  name: string;
  description: string;
  url: string;
  urlSlug: string;
  tags: string[];
  isVisible: boolean;
  variantAttributes?: string[];
  variants?: ShownVariant[];
  images: ShownImage[];
  pricing?: ShownVariant['pricing'] | null;
  seoOptions: { title: string | null; description: string | null } | null;
  /** A download's file, once uploaded (DIGITAL only). */
  digitalGood?: { id: string; filename: string } | null;
}

export const TYPE_WORDS: Record<string, string> = {
  PHYSICAL: 'Physical',
  SERVICE: 'Service',
  GIFT_CARD: 'Gift card',
  DIGITAL: 'Download',
};

const money = (m: Money) => `${m.value} ${m.currency}`;

/** The price a shopper pays: the sale price while on sale. */
function priceOf(pricing: ShownVariant['pricing']): Html {
  return pricing.onSale && pricing.salePrice
    ? html`<s>${money(pricing.basePrice)}</s> ${money(pricing.salePrice)}`
    : html`${money(pricing.basePrice)}`;
}

/** A thumbnail: the smallest width the image was produced in; none until it is processed. */
export function thumbnail(image: ShownImage | undefined, size = 100): Html {
  const widths = (image?.availableFormats ?? []).map((f) => Number.parseInt(f, 10)).sort((a, b) => a - b);
  if (!image || widths.length === 0) {
    return html`<span
      class="thumb empty"
      role="img"
      aria-label="${image ? 'Image being processed' : 'No image'}"
      >${image ? 'Processing' : 'No image'}</span
    >`;
  }
  return html`<img
    class="thumb"
    src="/images/${image.id}?format=${widths[0]}w"
    alt="${image.altText}"
    width="${size}"
    height="${size}"
  />`;
}

function stockSummary(product: ShownProduct): string {
  const stocked = (product.variants ?? []).filter((v) => v.stock);
  if (stocked.length === 0) return '—';
  if (stocked.some((v) => v.stock!.unlimited)) return 'Unlimited';
  const total = stocked.reduce((sum, v) => sum + v.stock!.quantity, 0);
  return total === 0 ? 'Sold out' : `${total} in stock`;
}

function priceSummary(product: ShownProduct): Html | string {
  const first = product.variants?.[0]?.pricing ?? product.pricing;
  if (!first) return '—';
  const more = (product.variants?.length ?? 0) > 1 ? ` (${product.variants!.length} variants)` : '';
  return html`${priceOf(first)}${more}`;
}

export function gridBody(
  site: WebsitesTable,
  view: { products: ShownProduct[]; query: string; type: string; next: string | null; notice?: string },
): Html {
  const base = `/sites/${site.id}/products`;
  const filter = { key: 'filter', values: { query: view.query, type: view.type } } satisfies FormState;
  const types = [
    { value: '', label: 'All types' },
    ...PRODUCT_TYPES.map((t) => ({ value: t, label: TYPE_WORDS[t]! })),
  ];
  return html`<p><a href="/sites/${site.id}">${site.title}</a></p>
    ${view.notice ? html`<p class="notice info" role="status">${view.notice}</p>` : ''}
    <p class="actions"><a class="button" href="${base}/new">Add a product</a></p>
    <form class="filters" method="get" action="${base}" role="search" aria-label="Search products">
      ${textField(filter, 'query', 'Name or SKU')} ${select(filter, 'type', 'Type', types)}
      <button class="secondary">Search</button>
    </form>
    ${
      view.products.length
        ? html`<ul class="product-grid">
            ${view.products.map(
              (p) =>
                html`<li class="card">
                  ${thumbnail(p.images[0])}
                  <h2><a href="${base}/${p.id}">${p.name || 'Untitled'}</a></h2>
                  <p class="meta">${TYPE_WORDS[p.type] ?? p.type} · ${p.isVisible ? 'Visible' : 'Hidden'}</p>
                  <p>${priceSummary(p)}</p>
                  <p class="meta">Stock: ${stockSummary(p)}</p>
                </li>`,
            )}
          </ul>`
        : html`<p>No products${view.query || view.type ? ' match this search' : ' yet'}.</p>`
    }
    ${
      view.next
        ? html`<p>
            <a
              href="${base}?${new URLSearchParams({ query: view.query, type: view.type, cursor: view.next }).toString()}"
              rel="next"
              >Next page</a
            >
          </p>`
        : ''
    }`;
}

/** Price, sale price, on sale: the fields of a price, under a prefix. */
export function priceFields(state: FormState, prefix: string, giftCard = false): Html {
  return html`${textField(state, `${prefix}price`, 'Price', { inputmode: 'decimal', hint: 'such as 12.95' })}
  ${
    giftCard
      ? ''
      : html`${textField(state, `${prefix}salePrice`, 'Sale price', { inputmode: 'decimal' })}
        ${checkbox(state, `${prefix}onSale`, 'On sale')}`
  }`;
}

/** SKU and stock fields of a variant, under a prefix. */
export function stockFields(state: FormState, prefix: string): Html {
  return html`${textField(state, `${prefix}stock`, 'Stock', { inputmode: 'numeric', hint: 'how many; blank is 0' })}
  ${checkbox(state, `${prefix}unlimited`, 'Unlimited stock')}`;
}

export function newProductBody(
  site: WebsitesTable,
  view: { csrf: string; state: FormState; storePages: { id: string; title: string }[] },
): Html {
  const { state } = view;
  const rows = rowCount(state.values);
  const types = PRODUCT_TYPES.map((t) => ({ value: t, label: TYPE_WORDS[t]! }));
  const pages = view.storePages.map((p) => ({ value: p.id, label: p.title }));
  return html`<form class="stack" method="post" action="/sites/${site.id}/products" novalidate>
    ${csrfInput(view.csrf)}<input type="hidden" name="rows" value="${rows}" /> ${formNotice(state)}
    ${select(state, 'type', 'Type', types)} ${select(state, 'storePageId', 'Store page', pages)}
    ${textField(state, 'name', 'Name', { required: true })}
    ${textArea(state, 'description', 'Description', 'HTML; scripts and event handlers are removed')}
    ${checkbox(state, 'isVisible', 'Visible in the store')}
    ${textField(state, 'urlSlug', 'Address in the store', {
      hint: 'letters, digits and single hyphens; blank to make it from the name',
    })}
    ${textField(state, 'tags', 'Tags', { hint: 'separated by commas, such as summer, linen' })}
    ${textField(state, 'variantAttributes', 'Option names', {
      hint: 'what tells the variants apart, separated by commas, such as Size, Colour; none for one variant',
    })}
    ${textField(state, 'seoTitle', 'Search engine title')}
    ${textField(state, 'seoDescription', 'Search engine description')}
    ${Array.from(
      { length: rows },
      (_, i) =>
        html`<fieldset>
          <legend>Variant ${i + 1}</legend>
          ${textField(state, `v${i}.sku`, 'SKU')} ${priceFields(state, `v${i}.`)}
          ${stockFields(state, `v${i}.`)}
          ${textField(state, `v${i}.options`, 'Option values', {
            hint: 'one for each option name, in the same order, separated by commas, such as M, Blue',
          })}
          ${physicalFields(state, `v${i}.`, site.measurement_standard, 'physical products only: ')}
        </fieldset>`,
    )}
    <p class="hint">A gift card takes a SKU and a price; a download takes the first variant's price only.</p>
    <div class="actions">
      <button name="action" value="create">Create product</button>
      <button class="secondary" name="action" value="add-row">Add another variant</button>
    </div>
  </form>`;
}

export function deleteBody(site: WebsitesTable, product: ShownProduct, csrf: string): Html {
  const url = `/sites/${site.id}/products/${product.id}`;
  return html`<p>
      Delete <strong>${product.name || 'Untitled'}</strong> with its ${product.variants?.length ?? 0}
      variant(s) and ${product.images.length} image(s)? Apps subscribed to product changes are told. This
      cannot be undone.
    </p>
    <form class="actions" method="post" action="${url}/delete">
      ${csrfInput(csrf)}
      <button class="danger">Delete the product</button>
      <a href="${url}">Keep it</a>
    </form>`;
}
