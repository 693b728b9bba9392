import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { websitePath } from '../shared/store-urls.ts';
import { DomainError } from '../shared/errors.ts';
import {
  cookieKeys,
  readCart,
  STORE_PARAMS,
  storeOf,
  writeCart,
  type CookieKeys,
  type StoreParams,
} from './cart-pages.ts';
import { addProductToCart, addToCart, droppedNotice, viewCart } from './cart.service.ts';
import { lineKey, parseQuantity, removeLine, setQuantity, type Cart } from './cart.ts';
import { cartBody, quantityField } from './cart.views.ts';
import { priceStoreCart } from './checkout-pricing.ts';
import { checkoutRoutes } from './checkout.routes.ts';
import { requireStoreCsrf } from './csrf.ts';
import { sendStorePage, storePage } from './layout.ts';
import type { StoreRow } from './store.repo.ts';
import type { StoreDeps } from './store-deps.ts';
import { field } from '../pages/forms.ts';

/**
 * /s/<websiteId>/cart: the shopper's cart, kept in a cookie (cart.ts). Adding comes from a
 * product page's form; the cart page changes quantities and removes lines. Every post carries
 * the store's CSRF token. The checkout's routes (checkout.routes.ts) share the cookie keys.
 */
export const cartRoutes: FastifyPluginAsync<{ deps: StoreDeps }> = async (app, { deps }) => {
  const loadKeys = cookieKeys(deps);

  async function showCart(
    reply: FastifyReply,
    keys: CookieKeys,
    store: StoreRow,
    cart: Cart,
    csrf: string,
    status = 200,
    error?: string,
  ) {
    const view = await viewCart(deps.api.db, store.id, cart);
    if (view.dropped.length) writeCart(reply, keys, store.id, view.cart);
    const info = droppedNotice(view.dropped);
    // The automatic discount only: a promo code is entered at the checkout.
    const priced = view.items.length
      ? await priceStoreCart(deps.api, store, view.items, null, null)
      : undefined;
    const body = cartBody({ websiteId: store.id, currency: store.currency, csrf, view, priced, error, info });
    return sendStorePage(
      reply,
      status,
      storePage({ websiteId: store.id, title: store.title }, 'Your cart', body),
    );
  }

  app.get<{ Params: StoreParams }>('/:websiteId/cart', { schema: STORE_PARAMS }, async (request, reply) => {
    const store = await storeOf(deps, request.params.websiteId);
    const keys = await loadKeys();
    return showCart(reply, keys, store, readCart(request, keys, store.id), request.storeCsrf);
  });

  app.post<{ Params: StoreParams }>('/:websiteId/cart', { schema: STORE_PARAMS }, async (request, reply) => {
    requireStoreCsrf(request);
    const store = await storeOf(deps, request.params.websiteId);
    const keys = await loadKeys();
    const cart = readCart(request, keys, store.id);
    try {
      const quantityText = field(request.body, 'quantity');
      const quantity = quantityText === '' ? 1 : parseQuantity(quantityText);
      // A download's page names its product: it has no variant to choose.
      const productId = field(request.body, 'productId');
      const added = productId
        ? await addProductToCart(deps.api.db, store.id, cart, productId, quantity)
        : await addToCart(deps.api.db, store.id, cart, field(request.body, 'variantId'), quantity);
      writeCart(reply, keys, store.id, added);
      return reply.redirect(`${websitePath(store.id)}/cart`, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return showCart(reply, keys, store, cart, request.storeCsrf, error.status, error.message);
    }
  });

  app.post<{ Params: StoreParams }>(
    '/:websiteId/cart/lines',
    { schema: STORE_PARAMS },
    async (request, reply) => {
      requireStoreCsrf(request);
      const store = await storeOf(deps, request.params.websiteId);
      const keys = await loadKeys();
      const cart = readCart(request, keys, store.id);
      const remove = field(request.body, 'remove');
      let changed = remove ? removeLine(cart, remove) : cart;
      if (!remove) {
        try {
          // Every quantity is checked before any applies: one bad field changes nothing.
          for (const line of cart) {
            const key = lineKey(line);
            const text = field(request.body, quantityField(key));
            if (text.trim() === '') continue;
            changed =
              text.trim() === '0' ? removeLine(changed, key) : setQuantity(changed, key, parseQuantity(text));
          }
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          return showCart(reply, keys, store, cart, request.storeCsrf, error.status, error.message);
        }
      }
      writeCart(reply, keys, store.id, changed);
      return reply.redirect(`${websitePath(store.id)}/cart`, 303);
    },
  );

  await app.register(checkoutRoutes, { deps, loadKeys });
};
