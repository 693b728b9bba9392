import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { bearerTokenCheck } from '../http/bearer-token.ts';
import type { Metrics } from './metrics.ts';

/** Requests no route matched share one label, so that scanned URLs never become series. */
const UNMATCHED = '(unmatched)';

/**
 * Who may read /metrics: with `METRICS_TOKEN`, a request bearing it; without, anyone who reaches
 * the port, for an instance on a private network.
 */
export function metricsAccess(token: string | undefined): (authorization: string | undefined) => void {
  if (!token) return () => {};
  return bearerTokenCheck(token, 'emporium metrics', 'Authorization: the metrics token is required');
}

/** `GET /metrics` in Prometheus's text format; hidden from the API documentation. */
export const metricsRoutes: FastifyPluginAsync<{ metrics: Metrics; token: string | undefined }> = async (
  app,
  { metrics, token },
) => {
  const check = metricsAccess(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    check(request.headers.authorization);
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
};

/**
 * One observation a request, in a callback hook (no promise, no turn of the microtask queue: the
 * get-by-id benchmark counts microseconds), labelled by the route pattern, never the URL.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.requests.observe(
      request.method,
      request.routeOptions.url ?? UNMATCHED,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}
