import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../shared/errors.ts';
import { cartRoutes } from './cart.routes.ts';
import { downloadRoutes } from './download.routes.ts';
import { loadStoreCsrf } from './csrf.ts';
import { sendStorePage, storePage } from './layout.ts';
import { registerStoreAssets } from './store-assets.ts';
import { storeRoutes } from './store.routes.ts';
import type { StoreDeps } from './store-deps.ts';
import { notice } from '../pages/notice.ts';

/** Form posts are a few fields (an address at most). */
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The public storefront: each website's store under /s/<websiteId> (shared/store-urls.ts),
 * server-rendered HTML that works without JavaScript. No script at all, styles and images from
 * this origin only, never framed; every form carries the browser's CSRF token (csrf.ts).
 */
export const storefront: FastifyPluginAsync<{ deps: StoreDeps }> = async (app, { deps }) => {
  // Pages, not API: kept out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        formAction: ["'self'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    hsts: deps.secure,
  });
  registerStoreAssets(app);

  await app.register(
    async (store) => {
      store.addHook('onRequest', (request, reply, done) => {
        request.storeCsrf = loadStoreCsrf(request, reply, deps.secure);
        done();
      });
      store.setErrorHandler(storeErrorHandler);
      store.setNotFoundHandler((_request, reply) => sendStorePage(reply, 404, notFoundPage()));
      await store.register(storeRoutes, { deps });
      // The cart and checkout, with paths relative to /s (`/:websiteId/cart`).
      await store.register(cartRoutes, { deps });
      await store.register(downloadRoutes, { deps });
    },
    { prefix: '/s' },
  );
};

function notFoundPage() {
  return storePage(
    undefined,
    'Page not found',
    notice('There is nothing at this address. The product may have been removed or hidden.', 'info'),
  );
}

/** Errors of store pages as store pages: a 404 names nothing, a 5xx says nothing of the cause. */
export function storeErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const known = error instanceof DomainError ? error : undefined;
  // An address that does not fit a route's pattern (a website id that is not one) names nothing.
  const status =
    error.validationContext === 'params'
      ? 404
      : (known?.status ?? (error.statusCode && error.statusCode < 500 ? error.statusCode : 500));
  if (status >= 500) request.log.error({ err: error }, 'store page failed');
  if (status === 404) return sendStorePage(reply, 404, notFoundPage());
  const message = status >= 500 ? 'Something went wrong on our side. Try again shortly.' : error.message;
  const title = status === 403 ? 'Not allowed' : 'Something is wrong';
  return sendStorePage(reply, status, storePage(undefined, title, notice(message)));
}
