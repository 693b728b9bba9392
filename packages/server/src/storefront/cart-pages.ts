import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { websitePath } from '../shared/store-urls.ts';
import { NotFound } from '../shared/errors.ts';
import { serverSecret } from '../db/server-secrets.ts';
import { CART_COOKIE, cartKey, decodeCart, encodeCart, type Cart } from './cart.ts';
import { receiptKey } from './checkout-receipt.ts';
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

/**
 * The cookies' keys, from one secret of the server's for every instance (db/server-secrets.ts),
 * split by use. Read at the first request, so building the app (as `npm run openapi` does)
 * needs no database; a failed read is tried again on the next request.
 */
export function cookieKeys(deps: StoreDeps): () => Promise<CookieKeys> {
  let loading: Promise<CookieKeys> | undefined;
  return () => {
    loading ??= serverSecret(deps.api.db, 'storefront').then(
      (secret) => ({ cart: cartKey(secret), receipt: receiptKey(secret), secure: deps.secure }),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
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
