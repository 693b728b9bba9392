import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimited } from '../errors.ts';

/**
 * Per-credential rate limit (api-details 2): 429 with Retry-After, and the RateLimit-* headers on
 * every response. With a Redis client the counts are shared by every instance; without, each
 * instance counts alone. A Redis outage lets requests through rather than failing them.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  perMinute: number,
  redis?: Redis,
  /** Where the counts live in Redis: each limited endpoint group counts apart. */
  nameSpace = 'emporium:rate:',
): Promise<void> {
  await app.register(rateLimit, {
    max: perMinute,
    ...(redis && { redis, nameSpace, skipOnError: true }),
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
