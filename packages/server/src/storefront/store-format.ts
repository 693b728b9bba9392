import { descriptionText } from '../catalog/description.ts';
import { imageUrl, type ImageRow, type VariantRow } from '../catalog/products.mapper.ts';
import { fromMinorUnits } from '../shared/money.ts';
import { html, type Html } from '../pages/html.ts';

/** Pieces every store page shows a product with: prices, stock, images. */

const formats = new Map<string, Intl.NumberFormat>();

/** An amount in minor units as a shopper reads it: "$12.50", "¥1,200". */
export function money(minor: number, currency: string): string {
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    formats.set(currency, format);
  }
  return format.format(Number(fromMinorUnits(minor, currency).value));
}

export interface Price {
  minor: number;
  /** The price before the sale, when on sale. */
  wasMinor?: number;
  currency: string;
}

/** What a variant costs now: its sale price while on sale. */
export function variantPrice(v: VariantRow): Price {
  return v.on_sale
    ? { minor: v.sale_price_minor, wasMinor: v.base_price_minor, currency: v.currency }
    : { minor: v.base_price_minor, currency: v.currency };
}

/** A price, with the price before a sale struck through and said in words. */
export function priceTag(price: Price, from = false): Html {
  const now = money(price.minor, price.currency);
  if (price.wasMinor === undefined || price.wasMinor <= price.minor) {
    return html`<span class="price">${from ? 'From ' : ''}${now}</span>`;
  }
  return html`<span class="price sale"
    >${from ? 'From ' : ''}<span class="visually-hidden">Sale price </span>${now}<del
      ><span class="visually-hidden">was </span>${money(price.wasMinor, price.currency)}</del
    ></span
  >`;
}

/** Units that may be sold: none when out of stock, Infinity when unlimited. */
export function available(v: VariantRow): number {
  return v.stock_unlimited ? Number.POSITIVE_INFINITY : Math.max(0, v.stock_quantity);
}

/** Fewer than this many left is worth saying. */
const FEW = 5;

export function stockText(units: number): string {
  if (units === 0) return 'Sold out';
  if (units <= FEW) return `Only ${units} left`;
  return 'In stock';
}

/** Image widths at or under this are enough for a product page's main image. */
const MAIN_WIDTH = 1000;

/** `srcset` from the widths the image pipeline has written, and the `src` for older browsers. */
export function imageSources(image: ImageRow): { src: string; srcset: string | undefined } {
  const path = imageUrl('', image.id);
  if (image.widths.length === 0) return { src: path, srcset: undefined };
  const srcset = image.widths.map((w) => `${path}?format=${w}w ${w}w`).join(', ');
  const fallback = [...image.widths].reverse().find((w) => w <= MAIN_WIDTH) ?? image.widths[0]!;
  return { src: `${path}?format=${fallback}w`, srcset };
}

/**
 * A responsive image: `sizes` says how wide it is shown, so the browser picks a file. Lazy unless
 * `eager`: the one image a page opens with (a product page's main picture) loads at once, with
 * the page, rather than when the browser finds it in view after the page has loaded.
 */
export function picture(
  image: ImageRow,
  sizes: string,
  { className, eager = false }: { className?: string; eager?: boolean } = {},
): Html {
  const { src, srcset } = imageSources(image);
  return html`<img
    src="${src}"
    ${srcset ? html`srcset="${srcset}" sizes="${sizes}"` : ''}
    alt="${image.alt_text}"
    width="${image.width}"
    height="${image.height}"
    ${className ? html`class="${className}"` : ''}
    loading="${eager ? 'eager' : 'lazy'}"
  />`;
}

/** A description's plain text, cut at a word, for `<meta name="description">`. */
export function excerpt(description: string, max = 160): string {
  const text = descriptionText(description).replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : cut.length)}…`;
}
