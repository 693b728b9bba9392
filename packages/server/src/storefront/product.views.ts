import { sanitizeDescription } from '../catalog/description.ts';
import { storeSells } from '../shared/order-model.ts';
import type { ProductRow, VariantRow } from '../catalog/products.mapper.ts';
import { productPath, storePagePath, websitePath } from '../shared/store-urls.ts';
import { html, Html } from '../pages/html.ts';
import { storePage, type StoreFrame } from './layout.ts';
import {
  available,
  excerpt,
  money,
  picture,
  priceTag,
  stockText,
  variantPrice,
  type Price,
} from './store-format.ts';
import { csrfInput } from '../pages/forms.ts';

/**
 * Where the browser's CSRF token goes in a cached page: PostgreSQL text cannot hold a NUL, so no
 * product field can contain one, and the page is split here once and joined with each token.
 */
export const CSRF_SLOT = '\u0000';

/** A product's price: the lowest a variant sells for now ("From" when they differ). */
export function productPrice(row: ProductRow): { price: Price; from: boolean } | undefined {
  if (row.variants.length === 0) {
    if (!row.currency || row.base_price_minor === null) return undefined;
    const onSale = row.on_sale && row.sale_price_minor !== null;
    return {
      price: onSale
        ? { minor: row.sale_price_minor!, wasMinor: row.base_price_minor, currency: row.currency }
        : { minor: row.base_price_minor, currency: row.currency },
      from: false,
    };
  }
  const prices = row.variants.map(variantPrice);
  const lowest = prices.reduce((a, b) => (b.minor < a.minor ? b : a));
  return { price: lowest, from: prices.some((p) => p.minor !== lowest.minor) };
}

/** Sold out: there are variants, and none has stock (an unlimited one never runs out). */
export function soldOut(row: ProductRow): boolean {
  return row.variants.length > 0 && row.variants.every((v) => available(v) === 0);
}

/**
 * A variant as a shopper tells it apart in the list: its option values (a gift card by its
 * amount alone), its price, its stock.
 */
function variantOption(row: ProductRow, v: VariantRow, units: number): string {
  const price = variantPrice(v);
  const amount = `${money(price.minor, price.currency)}${price.wasMinor !== undefined ? ' (sale)' : ''}`;
  if (row.type === 'GIFT_CARD') return amount;
  const values = row.variant_attributes.map((name) => v.attributes[name]).filter(Boolean);
  return [values.length ? values.join(' / ') : v.sku, amount, stockText(units)].join(' · ');
}

/** What the list of variants is called: the option names, or what a gift card's differ by. */
function chooserLabel(row: ProductRow): string {
  if (row.type === 'GIFT_CARD') return 'Amount';
  return row.variant_attributes.length ? row.variant_attributes.join(' / ') : 'Option';
}

/**
 * A download's form: it has no variants, so it names the product. One without its file yet is
 * not for sale, and says so.
 */
function downloadForm(websiteId: string, row: ProductRow): Html {
  if (!row.digital_good || !productPrice(row)) {
    return html`<p class="not-online">Not for sale yet: the file to download is on its way.</p>`;
  }
  return html`<form class="buy" method="post" action="${websitePath(websiteId)}/cart">
    ${csrfInput(CSRF_SLOT)}
    <input type="hidden" name="productId" value="${row.id}" />
    <input type="hidden" name="quantity" value="1" />
    <p class="meta">
      A download: after payment, a link to the file is on your confirmation and in its e-mail.
    </p>
    <button type="submit">Add to cart</button>
  </form>`;
}

function buyForm(websiteId: string, row: ProductRow): Html {
  if (row.type === 'DIGITAL') return downloadForm(websiteId, row);
  if (row.variants.length === 0) return html``;
  if (!storeSells(row.type)) {
    return html`<ul class="options">
        ${row.variants.map((v) => html`<li>${variantOption(row, v, available(v))}</li>`)}
      </ul>
      <p class="not-online">Not sold through this online store.</p>`;
  }
  const units = row.variants.map(available);
  const anyLeft = units.some((n) => n > 0);
  const first = row.variants.findIndex((_, i) => units[i]! > 0);
  const single = row.variants.length === 1;
  const most = Math.max(...units);
  const chooser = single
    ? html`<input type="hidden" name="variantId" value="${row.variants[0]!.id}" />`
    : html`<label
        >${chooserLabel(row)}
        <select name="variantId" required>
          ${row.variants.map(
            (v, i) =>
              html`<option
                value="${v.id}"
                ${i === first ? 'selected' : ''}
                ${units[i] === 0 ? 'disabled' : ''}
              >
                ${variantOption(row, v, units[i]!)}
              </option>`,
          )}
        </select></label
      >`;
  return html`<form class="buy" method="post" action="${websitePath(websiteId)}/cart">
    ${csrfInput(CSRF_SLOT)} ${chooser}
    <label
      >Quantity
      <input
        type="number"
        name="quantity"
        value="1"
        min="1"
        ${Number.isFinite(most) && most > 0 ? html`max="${most}"` : ''}
        inputmode="numeric"
        required
    /></label>
    <button type="submit" ${anyLeft ? '' : 'disabled'}>${anyLeft ? 'Add to cart' : 'Sold out'}</button>
  </form>`;
}

/** The product's stock as one line: the chosen variant's is in its option. */
function stockLine(row: ProductRow): Html {
  if (row.variants.length === 0) return html``;
  const total = row.variants.map(available).reduce((a, b) => a + b, 0);
  return html`<p class="stock">${stockText(total)}</p>`;
}

/**
 * A product's page, with CSRF_SLOT where the browser's token goes. Images are responsive. The
 * description was sanitized on the way in (catalog/description.ts, AB-2) and is sanitized again
 * here, so rows stored under older rules (pictures without alt text) show as today's would; the
 * page is cached under the product's version, so that is once a version.
 */
export function productPage(store: StoreFrame, row: ProductRow): Html {
  const [main, ...more] = row.images;
  const price = productPrice(row);
  const body = html`<article class="product">
    <div class="gallery">
      ${main ? picture(main, '(min-width: 48rem) 50vw, 100vw', { eager: true }) : ''}
      ${
        more.length
          ? html`<ul>
              ${more.map((image) => html`<li>${picture(image, '(min-width: 48rem) 12vw, 25vw')}</li>`)}
            </ul>`
          : ''
      }
    </div>
    <div>
      <p><a href="${storePagePath(store.websiteId, row.store_page_slug)}">Back to the store page</a></p>
      <h1>${row.name}</h1>
      ${price ? html`<p>${priceTag(price.price, price.from)}</p>` : ''} ${stockLine(row)}
      ${buyForm(store.websiteId, row)}
      <div class="description">${new Html(sanitizeDescription(row.description))}</div>
    </div>
  </article>`;
  const seoTitle = row.seo_options?.title;
  return storePage(store, seoTitle || row.name, body, {
    description: row.seo_options?.description || excerpt(row.description) || undefined,
    heading: false,
    exactTitle: Boolean(seoTitle),
  });
}

/** A product as the store page's grid shows it. */
export function productCard(websiteId: string, row: ProductRow): Html {
  const [main] = row.images;
  const price = productPrice(row);
  return html`<li>
    <a href="${productPath(websiteId, row.store_page_slug, row.url_slug)}">
      ${main ? picture(main, '(min-width: 48rem) 18rem, 50vw', { className: 'thumb' }) : html`<span class="noimage">No image</span>`}
      <h2>${row.name}</h2>
    </a>
    ${price ? html`<p>${priceTag(price.price, price.from)}</p>` : ''}
    ${soldOut(row) ? html`<p><span class="badge">Sold out</span></p>` : ''}
  </li>`;
}
