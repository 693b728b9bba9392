import { createHmac } from 'node:crypto';
import { ValidationError } from '../shared/errors.ts';
import { secretsEqual } from '../shared/secrets.ts';

/**
 * A shopper's cart, kept in their browser as a cookie: the lines (variant and quantity) and a
 * MAC over them with a server key, so it holds no price and nothing the server would trust
 * without checking. Prices, names and stock are the catalog's, read when a page shows the
 * cart or the order is placed. A cookie that is tampered with, malformed or another store's
 * reads as an empty cart.
 */

export const CART_COOKIE = 'emporium_cart';
export const MAX_LINES = 50;
export const MAX_QUANTITY = 99;

/**
 * A line: a variant and its quantity, or a product sold without variants (a download), whose
 * line names the product. Exactly one of the two ids is set.
 */
export interface CartLine {
  variantId: string | null;
  productId: string | null;
  quantity: number;
}

export type Cart = readonly CartLine[];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PRODUCT_ID = /^[0-9a-f]{24}$/;
/**
 * `<variant uuid>*<quantity>` or `p<product id>*<quantity>` lines joined by `.`: cookie-safe
 * without any escaping. A cookie of variant lines alone is what carts were before product lines,
 * so those still read.
 */
const LINE = /^([0-9a-f-]{36}|p[0-9a-f]{24})\*(\d{1,2})$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

/**
 * A line's key, one per line of a cart: the variant's UUID, or `p` and the product's id. Forms
 * name lines by it (their quantity fields, Remove).
 */
export const lineKey = (line: Pick<CartLine, 'variantId' | 'productId'>): string =>
  line.variantId ?? `p${line.productId}`;

/** The line a key names, or undefined when it names none. */
export function lineOfKey(key: string): Pick<CartLine, 'variantId' | 'productId'> | undefined {
  if (UUID.test(key)) return { variantId: key, productId: null };
  if (key.startsWith('p') && PRODUCT_ID.test(key.slice(1)))
    return { variantId: null, productId: key.slice(1) };
  return undefined;
}

/** The cart's own key, derived from a server secret so the one secret serves both uses apart. */
export function cartKey(serverKey: Buffer): Buffer {
  return createHmac('sha256', serverKey).update('emporium storefront cart').digest();
}

/** The MAC binds the lines to the website, so one store's cart is no cart in another. */
function mac(key: Buffer, websiteId: string, payload: string): string {
  return createHmac('sha256', key).update(`${websiteId}\n${payload}`).digest('base64url');
}

export function isVariantId(value: string): boolean {
  return UUID.test(value);
}

export function encodeCart(key: Buffer, websiteId: string, cart: Cart): string {
  const payload = cart.map((l) => `${lineKey(l)}*${l.quantity}`).join('.');
  return `${payload}~${mac(key, websiteId, payload)}`;
}

export function decodeCart(key: Buffer, websiteId: string, cookie: string | undefined): Cart {
  if (!cookie) return [];
  const at = cookie.lastIndexOf('~');
  if (at < 0) return [];
  const payload = cookie.slice(0, at);
  const presented = cookie.slice(at + 1);
  if (!MAC.test(presented) || !secretsEqual(presented, mac(key, websiteId, payload))) return [];
  if (payload === '') return [];
  const lines: CartLine[] = [];
  for (const part of payload.split('.')) {
    const match = LINE.exec(part);
    const item = match ? lineOfKey(match[1]!) : undefined;
    if (!item) return [];
    const quantity = Number(match![2]);
    if (quantity < 1 || quantity > MAX_QUANTITY) return [];
    if (lines.some((l) => lineKey(l) === match![1])) return [];
    lines.push({ ...item, quantity });
  }
  return lines.length > MAX_LINES ? [] : lines;
}

/** A quantity typed into a form: a whole number from 1 to MAX_QUANTITY, or a clear refusal. */
export function parseQuantity(text: string): number {
  const value = text.trim();
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_QUANTITY) {
    throw new ValidationError(`Choose a quantity from 1 to ${MAX_QUANTITY}.`);
  }
  return Number(value);
}

/** The cart with `quantity` more of the line's item (a key: lineKey): a new line, or added to its line. */
export function addLine(cart: Cart, key: string, quantity: number): Cart {
  const item = lineOfKey(key);
  if (!item) throw new ValidationError('This item is not for sale in this store.');
  const existing = cart.find((l) => lineKey(l) === key);
  if (!existing) {
    if (cart.length >= MAX_LINES) {
      throw new ValidationError(`A cart holds at most ${MAX_LINES} different items.`);
    }
    return [...cart, { ...item, quantity }];
  }
  if (existing.quantity + quantity > MAX_QUANTITY) {
    throw new ValidationError(
      `Your cart already has ${existing.quantity} of this item; at most ${MAX_QUANTITY} fit in one order.`,
    );
  }
  return cart.map((l) => (l === existing ? { ...l, quantity: l.quantity + quantity } : l));
}

/** The cart with the keyed line at this quantity; a key not in the cart changes nothing. */
export function setQuantity(cart: Cart, key: string, quantity: number): Cart {
  return cart.map((l) => (lineKey(l) === key ? { ...l, quantity } : l));
}

export function removeLine(cart: Cart, key: string): Cart {
  return cart.filter((l) => lineKey(l) !== key);
}
