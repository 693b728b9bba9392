import { orderDownloads } from '../orders/download-links.ts';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { websitePath } from '../shared/store-urls.ts';
import { findOrder } from '../orders/orders.read.ts';
import { NotFound } from '../shared/errors.ts';
import type { Html } from '../pages/html.ts';
import {
  cookieOptions,
  readCart,
  STORE_PARAMS,
  storeOf,
  writeCart,
  type CookieKeys,
  type StoreParams,
} from './cart-pages.ts';
import { droppedNotice, viewCart } from './cart.service.ts';
import { cartBody } from './cart.views.ts';
import { blankForm, formFrom } from './checkout-form.ts';
import { encodeReceipt, holdsReceipt, RECEIPT_COOKIE } from './checkout-receipt.ts';
import { decodeGiftCards, encodeGiftCards, GIFT_CARDS_COOKIE } from './gift-card-receipt.ts';
import { spentOnOrder } from '../giftcards/gift-cards.read.ts';
import { checkout, isAttemptKey } from './checkout.service.ts';
import { previewGiftCard } from './checkout-gift-card.ts';
import { checkoutBody } from './checkout.views.ts';
import { confirmationBody } from './confirmation.views.ts';
import { priceStoreCart } from './checkout-pricing.ts';
import { requireStoreCsrf } from './csrf.ts';
import { storePage } from './layout.ts';
import type { StoreDeps } from './store-deps.ts';
import { field } from '../pages/forms.ts';

/** A day: long enough to come back to the confirmation, short for a shared computer. */
const RECEIPT_SECONDS = 24 * 3600;

/**
 * Pages with what a shopper typed into the checkout or their address: kept by no cache, the
 * browser's included.
 */
function sendPrivatePage(reply: FastifyReply, status: number, body: Html) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(body.value);
}

/**
 * /s/<websiteId>/checkout: the form, the order placed from the cart (checkout.service.ts), and
 * the confirmation, shown only to the browser that placed the order (checkout-receipt.ts).
 */
export const checkoutRoutes: FastifyPluginAsync<{
  deps: StoreDeps;
  loadKeys: () => Promise<CookieKeys>;
}> = async (app, { deps, loadKeys }) => {
  app.get<{ Params: StoreParams }>(
    '/:websiteId/checkout',
    { schema: STORE_PARAMS },
    async (request, reply) => {
      const store = await storeOf(deps, request.params.websiteId);
      const keys = await loadKeys();
      const view = await viewCart(deps.api.db, store.id, readCart(request, keys, store.id));
      if (view.items.length === 0) return reply.redirect(`${websitePath(store.id)}/cart`, 303);
      if (view.dropped.length) writeCart(reply, keys, store.id, view.cart);
      const form = blankForm();
      const body = checkoutBody({
        websiteId: store.id,
        currency: store.currency,
        csrf: request.storeCsrf,
        view,
        priced: await priceStoreCart(deps.api, store, view.items, null, null),
        form,
        // A new key for each form shown: one send of it places at most one order.
        attempt: deps.api.ids.uuid(),
        errors: {},
        message: droppedNotice(view.dropped) ?? view.items.find((i) => i.shortage)?.shortage,
      });
      return sendPrivatePage(
        reply,
        200,
        storePage({ websiteId: store.id, title: store.title }, 'Checkout', body),
      );
    },
  );

  app.post<{ Params: StoreParams }>(
    '/:websiteId/checkout',
    { schema: STORE_PARAMS },
    async (request, reply) => {
      requireStoreCsrf(request);
      const store = await storeOf(deps, request.params.websiteId);
      const keys = await loadKeys();
      const cart = readCart(request, keys, store.id);
      const form = formFrom(request.body);
      const posted = field(request.body, 'attempt');
      const attempt = isAttemptKey(posted) ? posted : deps.api.ids.uuid();
      const minor = (name: string) => {
        const value = field(request.body, name);
        return /^\d{1,15}$/.test(value) ? Number(value) : undefined;
      };
      // "Apply code" prices the cart with the codes and shows the form again, ordering nothing.
      const outcome =
        field(request.body, 'action') === 'apply'
          ? { placed: false as const, errors: {} }
          : await checkout(
              deps.api,
              store,
              cart,
              form,
              { key: posted, browser: request.storeCsrf },
              { totalMinor: minor('shownTotal'), giftCardPaysMinor: minor('giftCardPays') },
            );
      const frame = { websiteId: store.id, title: store.title };
      if (outcome.placed) {
        writeCart(reply, keys, store.id, []);
        reply.setCookie(
          RECEIPT_COOKIE,
          encodeReceipt(keys.receipt, store.id, outcome.orderId),
          cookieOptions(keys, store.id, RECEIPT_SECONDS),
        );
        // The codes of the gift cards it bought, shown once more on the confirmation (a replay has none).
        if (outcome.giftCards) {
          reply.setCookie(
            GIFT_CARDS_COOKIE,
            encodeGiftCards(keys.receipt, store.id, outcome.orderId, outcome.giftCards),
            cookieOptions(keys, store.id, RECEIPT_SECONDS),
          );
        }
        return reply.redirect(`${websitePath(store.id)}/checkout/orders/${outcome.orderId}`, 303);
      }
      if (outcome.cart) writeCart(reply, keys, store.id, outcome.cart);
      const view = await viewCart(deps.api.db, store.id, outcome.cart ?? cart);
      const statusOf = (errors: object) => (Object.keys(errors).length ? 400 : outcome.message ? 409 : 200);
      if (view.items.length === 0) {
        const body = cartBody({
          websiteId: store.id,
          currency: store.currency,
          csrf: request.storeCsrf,
          view,
          error: outcome.message,
        });
        return sendPrivatePage(reply, statusOf(outcome.errors), storePage(frame, 'Your cart', body));
      }
      const priced = await priceStoreCart(deps.api, store, view.items, form.promoCode, form.email);
      // The gift card as it stands now: what it pays of this total, or why it cannot pay.
      const errors = { ...outcome.errors };
      const preview = errors.giftCardCode
        ? undefined
        : await previewGiftCard(deps.api.db, store.id, form.giftCardCode, priced.totalMinor);
      if (preview && !preview.applied) errors.giftCardCode = preview.refusal;
      const body = checkoutBody({
        websiteId: store.id,
        currency: store.currency,
        csrf: request.storeCsrf,
        view,
        priced,
        form,
        attempt,
        errors,
        message: outcome.message,
        ...(preview?.applied && { giftCard: preview }),
      });
      return sendPrivatePage(reply, statusOf(errors), storePage(frame, 'Checkout', body));
    },
  );

  app.get<{ Params: StoreParams & { orderId: string } }>(
    '/:websiteId/checkout/orders/:orderId',
    { schema: STORE_PARAMS },
    async (request, reply) => {
      const { websiteId, orderId } = request.params;
      const store = await storeOf(deps, websiteId);
      const keys = await loadKeys();
      if (!holdsReceipt(keys.receipt, store.id, orderId, request.cookies[RECEIPT_COOKIE])) {
        throw new NotFound('There is no order to show at this address.');
      }
      const order = await findOrder(deps.api, store.id, orderId);
      const title = 'Order confirmed';
      const giftCards = decodeGiftCards(keys.receipt, store.id, orderId, request.cookies[GIFT_CARDS_COOKIE]);
      return sendPrivatePage(
        reply,
        200,
        storePage(
          { websiteId: store.id, title: store.title },
          title,
          confirmationBody(
            store.id,
            order,
            giftCards,
            await orderDownloads(deps.api, store.id, orderId),
            await spentOnOrder(deps.api.db, store.id, orderId),
          ),
        ),
      );
    },
  );
};
