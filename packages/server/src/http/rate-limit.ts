import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { RateLimited } from '../errors.ts';

/**
 * Per-credential rate limit (api-details 2): 429 with Retry-After, and the RateLimit-* headers on
 * every response. Counts live in this process; instances behind one balancer each count apart.
 */
export async function registerRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    hook: 'onRequest',
    enableDraftSpec: true,
    keyGenerator: (request) =>
      request.credential ? `${request.credential.kind}:${request.credential.id}` : `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) =>
      new RateLimited(
        `rate limit of ${context.max} requests a minute reached; retry in ${context.after}`,
        Math.ceil(context.ttl / 1000),
      ),
  });
}
