import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import { DomainError, RateLimited } from '../errors.ts';
import { accountRoutes } from './account.routes.ts';
import { apiKeysRoutes } from './api-keys.routes.ts';
import { registerAssets } from './assets.ts';
import { consentRoutes } from './consent.routes.ts';
import { contactsRoutes } from './contacts.routes.ts';
import { discountsRoutes } from './discounts.routes.ts';
import { developerAppsRoutes, registerIconRoute } from './developer-apps.routes.ts';
import { extensionsRoutes } from './extensions.routes.ts';
import { html } from '../pages/html.ts';
import { page, sendPage } from './layout.ts';
import { ordersRoutes } from './orders.routes.ts';
import { SignInRequired } from './owner.ts';
import { productsRoutes } from './products.routes.ts';
import { Sessions, type SessionDeps } from './session.ts';
import { sitesRoutes } from './sites.routes.ts';
import { webhooksRoutes } from './webhooks.routes.ts';
import type { WebDeps } from './web-deps.ts';
import { notice } from '../pages/notice.ts';

/** Form posts are a few fields. */
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The site owner's pages and the authorization endpoint: server-rendered HTML, no script, one
 * stylesheet from this origin. Every response: no caching, no framing, no referrer
 * (security AZ-7); every form: the browser's CSRF token (GR-2).
 */
export const ownerWeb: FastifyPluginAsync<{
  deps: Omit<WebDeps, 'sessions' | 'signInPerMinute'> & Omit<SessionDeps, 'db' | 'clock'>;
  signInPerMinute: number;
  redis?: Redis;
}> = async (app, { deps, signInPerMinute, redis }) => {
  // Pages, not API: kept out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  const webDeps: WebDeps = { ...deps, sessions: new Sessions(deps), signInPerMinute };
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
      request.browser = await webDeps.sessions.load(request, reply);
    });
    await pages.register(accountRoutes, { deps: webDeps });
    await pages.register(sitesRoutes, { deps: webDeps });
    await pages.register(ordersRoutes, { deps: webDeps });
    await pages.register(productsRoutes, { deps: webDeps });
    await pages.register(contactsRoutes, { deps: webDeps });
    await pages.register(discountsRoutes, { deps: webDeps });
    await pages.register(webhooksRoutes, { deps: webDeps });
    await pages.register(apiKeysRoutes, { deps: webDeps });
    await pages.register(developerAppsRoutes, { deps: webDeps });
    await pages.register(extensionsRoutes, { deps: webDeps });
    await pages.register(consentRoutes, { deps: webDeps });
  });
};
