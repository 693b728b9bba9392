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

export interface CartLine {
  variantId: string;
  quantity: number;
}

export type Cart = readonly CartLine[];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** `<variant uuid>*<quantity>` lines joined by `.`: cookie-safe without any escaping. */
const LINE = /^([0-9a-f-]{36})\*(\d{1,2})$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

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
  const payload = cart.map((l) => `${l.variantId}*${l.quantity}`).join('.');
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
    if (!match || !UUID.test(match[1]!)) return [];
    const quantity = Number(match[2]);
    if (quantity < 1 || quantity > MAX_QUANTITY) return [];
    if (lines.some((l) => l.variantId === match[1])) return [];
    lines.push({ variantId: match[1]!, quantity });
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

/** The cart with `quantity` more of the variant: a new line, or added to its line. */
export function addLine(cart: Cart, variantId: string, quantity: number): Cart {
  const existing = cart.find((l) => l.variantId === variantId);
  if (!existing) {
    if (cart.length >= MAX_LINES) {
      throw new ValidationError(`A cart holds at most ${MAX_LINES} different items.`);
    }
    return [...cart, { variantId, quantity }];
  }
  if (existing.quantity + quantity > MAX_QUANTITY) {
    throw new ValidationError(
      `Your cart already has ${existing.quantity} of this item; at most ${MAX_QUANTITY} fit in one order.`,
    );
  }
  return cart.map((l) => (l === existing ? { variantId, quantity: l.quantity + quantity } : l));
}

/** The cart with the variant's line at this quantity; a variant not in the cart changes nothing. */
export function setQuantity(cart: Cart, variantId: string, quantity: number): Cart {
  return cart.map((l) => (l.variantId === variantId ? { variantId, quantity } : l));
}

export function removeLine(cart: Cart, variantId: string): Cart {
  return cart.filter((l) => l.variantId !== variantId);
}
