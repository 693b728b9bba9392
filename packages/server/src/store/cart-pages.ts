import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { websitePath } from '../catalog/store-urls.ts';
import { NotFound } from '../errors.ts';
import { CART_COOKIE, decodeCart, encodeCart, type Cart } from './cart.ts';
import { findStore, type StoreRow } from './store.repo.ts';
import type { StoreDeps } from './store-deps.ts';

/**
 * What the cart's and the checkout's routes share: the store an address names, and the cookies.
 * The cart cookie is one per website, sent only to that store's pages (its path), not readable
 * by scripts, and kept a month, as a shop keeps a cart for a returning shopper.
 */

/** Website ids are 24 hex characters (ids.ts); an address with anything else names no store. */
export const STORE_PARAMS = {
  params: {
    type: 'object',
    properties: { websiteId: { type: 'string', pattern: '^[0-9a-f]{24}$' } },
    required: ['websiteId'],
  },
} as const;

export interface StoreParams {
  websiteId: string;
}

export async function storeOf(deps: StoreDeps, websiteId: string): Promise<StoreRow> {
  const store = await findStore(deps.api, websiteId);
  if (!store) throw new NotFound('There is no store at this address.');
  return store;
}

const CART_SECONDS = 30 * 24 * 3600;

export interface CookieKeys {
  cart: Buffer;
  receipt: Buffer;
  /** Cookies are `Secure` when the store is served over https. */
  secure: boolean;
}

export function cookieOptions(keys: CookieKeys, websiteId: string, maxAge: number) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: keys.secure,
    path: websitePath(websiteId),
    maxAge,
  };
}

export function readCart(request: FastifyRequest, keys: CookieKeys, websiteId: string): Cart {
  return decodeCart(keys.cart, websiteId, request.cookies[CART_COOKIE]);
}

export function writeCart(reply: FastifyReply, keys: CookieKeys, websiteId: string, cart: Cart): void {
  if (cart.length === 0) {
    reply.clearCookie(CART_COOKIE, cookieOptions(keys, websiteId, 0));
    return;
  }
  reply.setCookie(
    CART_COOKIE,
    encodeCart(keys.cart, websiteId, cart),
    cookieOptions(keys, websiteId, CART_SECONDS),
  );
}
