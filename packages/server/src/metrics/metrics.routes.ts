import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { Unauthorized } from '../shared/errors.ts';
import { digest } from '../shared/secrets.ts';
import type { Metrics } from './metrics.ts';

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/** Requests no route matched share one label, so that scanned URLs never become series. */
const UNMATCHED = '(unmatched)';

/**
 * Who may read /metrics: with `METRICS_TOKEN`, a request bearing it (compared in constant time,
 * through digests: the token itself is not kept); without, anyone who reaches the port, for an
 * instance on a private network.
 */
export function metricsAccess(token: string | undefined): (authorization: string | undefined) => void {
  if (!token) return () => {};
  const expected = digest(token);
  return (authorization) => {
    const given = BEARER.exec(authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      throw new Unauthorized(
        'Authorization: the metrics token is required',
        'Bearer realm="emporium metrics"',
      );
    }
  };
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
