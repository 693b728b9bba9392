import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import { DomainError, RateLimited } from '../shared/errors.ts';
import { adminAccountRoutes } from './account.routes.ts';
import { adminApiKeysRoutes } from './developers/api-keys.routes.ts';
import { registerAssets } from './assets.ts';
import { adminConsentRoutes } from './consent.routes.ts';
import { adminContactsRoutes } from './customers/contacts.routes.ts';
import { adminDiscountsRoutes } from './discounts/discounts.routes.ts';
import { adminGiftCardsRoutes } from './giftcards/gift-cards.routes.ts';
import { adminDeveloperAppsRoutes, registerIconRoute } from './developers/developer-apps.routes.ts';
import { adminExtensionsRoutes } from './developers/extensions.routes.ts';
import { adminFaultsRoutes } from './developers/faults.routes.ts';
import { html } from '../pages/html.ts';
import { page, sendPage } from './layout.ts';
import { adminOrdersRoutes } from './orders/orders.routes.ts';
import { adminOrderChangesRoutes } from './orders/order-changes.routes.ts';
import { adminRefundsRoutes } from './orders/refunds.routes.ts';
import { adminOrderDownloadsRoutes } from './orders/order-downloads.routes.ts';
import { SignInRequired } from './owner.ts';
import { adminProductsRoutes } from './products/products.routes.ts';
import { Sessions, type SessionDeps } from './session.ts';
import { adminSitesRoutes } from './sites.routes.ts';
import { adminWebhooksRoutes } from './developers/webhooks.routes.ts';
import { adminApiLogRoutes } from './developers/api-log.routes.ts';
import type { AdminDeps } from './admin-deps.ts';
import { notice } from '../pages/notice.ts';
import { adminEmailsRoutes } from './emails/emails.routes.ts';

/** Form posts are a few fields. */
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The site owner's pages and the authorization endpoint: server-rendered HTML, no script, one
 * stylesheet from this origin. Every response: no caching, no framing, no referrer
 * (security AZ-7); every form: the browser's CSRF token (GR-2).
 */
export const adminPages: FastifyPluginAsync<{
  deps: Omit<AdminDeps, 'sessions' | 'signInPerMinute'> & Omit<SessionDeps, 'db' | 'clock'>;
  signInPerMinute: number;
  redis?: Redis;
}> = async (app, { deps, signInPerMinute, redis }) => {
  // Pages, not API: kept out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  const adminDeps: AdminDeps = { ...deps, sessions: new Sessions(deps), signInPerMinute };
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        // No form-action: the consent form's answer is a redirect to the app's own address.
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    hsts: deps.secure,
  });
  // Limits only the routes that ask for one (sign-in, sign-up, consent), by client address.
  await app.register(rateLimit, {
    global: false,
    ...(redis && { redis, nameSpace: 'emporium:web:', skipOnError: true }),
    errorResponseBuilder: (_request, context) =>
      new RateLimited(`Too many attempts. Try again in ${context.after}.`, Math.ceil(context.ttl / 1000)),
  });
  app.decorateRequest('browser', null as never);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof SignInRequired) {
      return request.method === 'GET'
        ? reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303)
        : sendPage(
            reply,
            403,
            page(
              'Signed out',
              html`${notice('Sign in first.')}
                <p><a href="/login">Sign in</a></p>`,
            ),
          );
    }
    if (error instanceof RateLimited) reply.header('retry-after', String(error.retryAfterSeconds));
    const known = error instanceof DomainError ? error : undefined;
    const status = known?.status ?? (error.statusCode && error.statusCode < 500 ? error.statusCode : 500);
    if (status >= 500) request.log.error({ err: error }, 'page failed');
    const message = status >= 500 ? 'Something went wrong on our side. Try again shortly.' : error.message;
    return sendPage(
      reply,
      status,
      page(status === 403 ? 'Not allowed' : 'Something is wrong', notice(message)),
    );
  });

  // Files: cacheable, and no session to read for them.
  registerAssets(app);
  registerIconRoute(app, deps.db);
  // Pages: the browser's session read first, and never cached.
  await app.register(async (pages) => {
    pages.addHook('preHandler', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      request.browser = await adminDeps.sessions.load(request, reply);
    });
    await pages.register(adminAccountRoutes, { deps: adminDeps });
    await pages.register(adminSitesRoutes, { deps: adminDeps });
    await pages.register(adminOrdersRoutes, { deps: adminDeps });
    await pages.register(adminOrderChangesRoutes, { deps: adminDeps });
    await pages.register(adminRefundsRoutes, { deps: adminDeps });
    await pages.register(adminOrderDownloadsRoutes, { deps: adminDeps });
    await pages.register(adminEmailsRoutes, { deps: adminDeps });
    await pages.register(adminProductsRoutes, { deps: adminDeps });
    await pages.register(adminContactsRoutes, { deps: adminDeps });
    await pages.register(adminDiscountsRoutes, { deps: adminDeps });
    await pages.register(adminGiftCardsRoutes, { deps: adminDeps });
    await pages.register(adminWebhooksRoutes, { deps: adminDeps });
    await pages.register(adminApiLogRoutes, { deps: adminDeps });
    await pages.register(adminApiKeysRoutes, { deps: adminDeps });
    await pages.register(adminDeveloperAppsRoutes, { deps: adminDeps });
    await pages.register(adminExtensionsRoutes, { deps: adminDeps });
    await pages.register(adminFaultsRoutes, { deps: adminDeps });
    await pages.register(adminConsentRoutes, { deps: adminDeps });
  });
};
