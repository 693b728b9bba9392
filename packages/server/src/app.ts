import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { analyticsRoutes } from './analytics/transaction-summaries.routes.ts';
import { productsV2Routes } from './catalog/v2/products-v2.routes.ts';
import { productsRoutes } from './catalog/products.routes.ts';
import { inventoryRoutes } from './catalog/inventory/inventory.routes.ts';
import { ordersRoutes } from './orders/orders.routes.ts';
import { storePagesRoutes } from './sites/store-pages.routes.ts';
import { variantsRoutes } from './catalog/variants.routes.ts';
import { imageFilesRoutes } from './catalog/images/image-files.routes.ts';
import { imagesRoutes } from './catalog/images/images.routes.ts';
import { profilesRoutes } from './customers/profiles.routes.ts';
import { transactionsRoutes } from './transactions/transactions.routes.ts';
import { discountsRoutes } from './discounts/discounts.routes.ts';
import { fulfillmentOptionsRoutes } from './discounts/fulfillment-options.routes.ts';
import { addressBookRoutes } from './customers/address-book.routes.ts';
import { contactsRoutes } from './customers/contacts.routes.ts';
import {
  DEFAULT_API_LOG_LINES_PER_SECOND,
  DEFAULT_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_SIGN_IN_PER_MINUTE,
} from './config.ts';
import { apiDeps, type ApiDeps, type AppDeps } from './deps.ts';
import { ServiceUnavailable } from './shared/errors.ts';
import { registerAuthentication, registerScopeCheck, type CredentialResolver } from './http/authenticate.ts';
import { registerChangeWrappers } from './http/change-wrapper.ts';
import { registerClientAbortLog } from './http/client-abort.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { handleError, registerErrorHandling } from './http/error-handler.ts';
import { registerIdempotencyKeyCheck } from './http/idempotency-key.ts';
import { healthRoutes } from './http/health.routes.ts';
import { registerJsonParser } from './http/json-body.ts';
import { LogDestination } from './http/log-destination.ts';
import { requestLogSerializer } from './http/log-redaction.ts';
import { registerRequestLog } from './http/request-log.ts';
import { registerRateLimit } from './http/rate-limit.ts';
import { registerTextCheck } from './http/request-text.ts';
import { requestIds } from './shared/ids.ts';
import { authenticateAccessToken } from './oauth/access-tokens.ts';
import { TOKEN_PATH, tokenRoutes } from './oauth/token.routes.ts';
import { ACCESS_TOKEN_PREFIX } from './oauth/tokens.ts';
import { API_KEY_PREFIX, apiKeyCache, authenticateApiKey } from './sites/api-keys.service.ts';
import { websiteRoutes } from './sites/website.routes.ts';
import { storefront } from './storefront/store.plugin.ts';
import { metricsRoutes, registerRequestMetrics } from './metrics/metrics.routes.ts';
import { adminPages } from './admin/admin.plugin.ts';
import { subscriptionsRoutes } from './webhooks/subscriptions.routes.ts';
import { testControlsRoutes } from './testing/controls.routes.ts';
import { registerApiFaults, registerTokenFaults } from './faults/inject.ts';
import { ApiLog } from './api-log/api-log.ts';

const MAX_BODY_BYTES = 1024 * 1024;
/** Headers arrive first and are small: a client that takes longer than this is stalling. */
const HEADERS_TIMEOUT_MS = 10_000;
/** How often the server looks for requests past their time (Node's default is 30 s). */
const TIMEOUT_CHECK_MS = 1_000;

/** Builds the whole HTTP application; no socket, no environment reading (architecture: habit 1). */
export async function buildApp(deps: AppDeps, api: ApiDeps = apiDeps(deps)): Promise<FastifyInstance> {
  const requestId = requestIds();
  const logStream = deps.logStream ?? new LogDestination();
  const requestTimeoutMs = (deps.config.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000;
  const app = Fastify({
    logger: {
      level: deps.config.logLevel,
      // A request is logged by requestLogSerializer alone, which writes no header (RS-6), so there is
      // no pino `redact` for req.headers.*: it ran on the serializer's output, found nothing, and
      // cloned the object to find it on every line (bench/README.md, "Get by id").
      serializers: { req: requestLogSerializer },
      // Standard output by default, through a destination cheaper per line than pino's own.
      stream: logStream,
    },
    // The request id is the error body's contextId, so a user's report leads to the log line.
    genReqId: requestId,
    // A slow client (slow headers, a body trickling in) gets a 408 and is disconnected, so
    // thousands of them hold sockets for a bounded time only.
    requestTimeout: requestTimeoutMs,
    http: {
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    // Requests the router or the HTTP parser refuses leave in the documented body too.
    frameworkErrors: handleError,
    clientErrorHandler: clientErrorHandler(requestId),
    // The client's address comes from X-Forwarded-For only through a trusted proxy (AB-1).
    trustProxy: deps.config.trustProxy?.length ? deps.config.trustProxy : false,
    // One line per request, written by registerRequestLog (http/request-log.ts), not Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'contextId', disableRequestLogging: true }),
    bodyLimit: MAX_BODY_BYTES,
    // A path may carry a list of 50 ids (api-details 4); longer lists still reach the 400 of the rule.
    routerOptions: { maxParamLength: 4096 },
    return503OnClosing: false,
    // Bodies are validated as sent: "12" is not a number, unknown fields are ignored.
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Response schemas document the API; serialization stays JSON.stringify (measurements.md: faster here).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerErrorHandling(app);
  registerClientAbortLog(app);
  registerJsonParser(app);
  registerTextCheck(app);
  registerChangeWrappers(app);

  // Hooks every request runs take a callback rather than being async: no promise and no turn of
  // the microtask queue each (bench/README.md, "Get by id"). The authentication's answers at once
  // when the credential is cached, and asks the database otherwise.
  registerRequestLog(app, logStream);
  registerRequestMetrics(app, api.metrics);

  // Each site's request log (api-log/): kept by reference on the request path, written in batches.
  const apiLog = new ApiLog({
    db: deps.db,
    clock: api.clock,
    metrics: api.metrics,
    enabled: deps.config.apiLog !== false,
    linesPerSecond: deps.config.apiLogLinesPerSecond ?? DEFAULT_API_LOG_LINES_PER_SECOND,
    onError: (err, lines) => app.log.error({ err, lines }, 'request log batch dropped'),
  });
  app.decorate('apiLog', apiLog);
  app.addHook('onClose', () => apiLog.flush());

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Answers at once, within the HTTP parser's callback of the headers: a request without a body
  // keeps its connection all the same (early-close.ts, bodyUnread).
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing)
      return done(new ServiceUnavailable('the server is shutting down; retry on another instance'));
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Emporium Commerce API',
        version: '1.1',
        description:
          "Products, store pages and site information of a site owner's store. Every call needs `Authorization: Bearer <API key or access token>` and a `User-Agent`.",
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          basic: { type: 'http', scheme: 'basic' },
          operator: {
            type: 'http',
            scheme: 'bearer',
            description: 'The test controls token (TEST_CONTROLS_TOKEN, or the one printed at start).',
          },
        },
      },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await app.register(healthRoutes, { db: deps.db, redis: deps.redis, storage: deps.storage });
  await app.register(metricsRoutes, { metrics: api.metrics, token: deps.config.metricsToken });
  if (deps.config.testControlsToken) {
    await app.register(testControlsRoutes, { deps: api, token: deps.config.testControlsToken });
  }

  const apiDeps = api;
  const keyDeps = { db: deps.db, pool: deps.pool, clock: api.clock, keys: apiKeyCache(deps.changes) };
  const tokens = api.tokens;
  const tokenDeps = { ...deps, clock: api.clock, tokens };
  const resolve: CredentialResolver = (presented) => {
    if (presented.startsWith(API_KEY_PREFIX)) return authenticateApiKey(keyDeps, presented);
    if (presented.startsWith(ACCESS_TOKEN_PREFIX)) return authenticateAccessToken(tokenDeps, presented);
    return undefined;
  };

  await app.register(adminPages, {
    deps: {
      db: deps.db,
      clock: api.clock,
      ids: deps.ids,
      tokens,
      clients: api.clients,
      jobs: deps.jobs,
      csrfKey: deps.csrfKey,
      secure: deps.config.authUrl.startsWith('https:'),
      commerce: api,
    },
    signInPerMinute: deps.config.signInPerMinute ?? DEFAULT_SIGN_IN_PER_MINUTE,
    redis: deps.redis,
  });
  await app.register(storefront, { deps: { api, secure: deps.config.baseUrl.startsWith('https:') } });
  // Injected faults (faults/): the token endpoint's own, for rules narrowed to an app.
  const faultDeps = { faults: api.faults, metrics: api.metrics, clock: api.clock };
  registerTokenFaults(app, faultDeps, TOKEN_PATH);
  await app.register(async (token) => {
    apiLog.registerToken(token);
    await token.register(tokenRoutes, {
      deps: { db: deps.db, pool: deps.pool, clock: api.clock, ids: deps.ids, tokens, clients: api.clients },
      rateLimitPerMinute: deps.config.rateLimitPerMinute,
      redis: deps.redis,
    });
  });

  await app.register(imageFilesRoutes, { deps: apiDeps });
  await app.register(async (api) => {
    registerAuthentication(api, resolve);
    apiLog.registerApi(api);
    registerRateLimit(api, deps.config.rateLimitPerMinute, deps.redis);
    registerScopeCheck(api);
    registerIdempotencyKeyCheck(api);
    registerApiFaults(api, faultDeps);
    await api.register(productsRoutes, { prefix: '/1.1/commerce/products', deps: apiDeps });
    await api.register(productsRoutes, { prefix: '/1.0/commerce/products', deps: apiDeps, alias: true });
    await api.register(variantsRoutes, { prefix: '/1.1/commerce/products', deps: apiDeps });
    await api.register(variantsRoutes, { prefix: '/1.0/commerce/products', deps: apiDeps, alias: true });
    await api.register(imagesRoutes, { prefix: '/1.1/commerce/products', deps: apiDeps });
    await api.register(imagesRoutes, { prefix: '/1.0/commerce/products', deps: apiDeps, alias: true });
    await api.register(productsV2Routes, { prefix: '/v2/commerce/products', deps: apiDeps });
    await api.register(storePagesRoutes, { deps: apiDeps });
    await api.register(inventoryRoutes, { deps: apiDeps });
    await api.register(transactionsRoutes, { deps: apiDeps });
    await api.register(profilesRoutes, { deps: apiDeps });
    await api.register(ordersRoutes, { deps: apiDeps });
    await api.register(websiteRoutes, { deps: apiDeps });
    await api.register(subscriptionsRoutes, { deps: apiDeps });
    await api.register(analyticsRoutes, { deps: apiDeps });
    await api.register(discountsRoutes, { deps: apiDeps });
    await api.register(fulfillmentOptionsRoutes);
    await api.register(contactsRoutes, { deps: apiDeps });
    await api.register(addressBookRoutes, { deps: apiDeps });
  });
  return app;
}
