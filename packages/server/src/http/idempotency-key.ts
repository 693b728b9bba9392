import type { FastifyInstance } from 'fastify';
import { closeAfterAnswer } from './early-close.ts';

/**
 * Routes whose config says `idempotencyKey: true` need the Idempotency-Key header. Without it (or
 * with it empty) the platform answers before reading the body, with 400 and an RFC 7807 body
 * rather than the standard error (platform-surface 0.5): clients match on that body, so it is
 * the same here. A key that is present but malformed is the route's ordinary validation error.
 */
export function registerIdempotencyKeyCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!request.routeOptions.config.idempotencyKey) return;
    const key = request.headers['idempotency-key'];
    if (typeof key === 'string' && key !== '') return;
    if (!request.raw.complete) closeAfterAnswer(reply);
    return reply.code(400).type('application/problem+json').send(missingKeyProblem(request.url));
  });
}

/** The RFC 7807 body of a request to `url` without its Idempotency-Key. */
export function missingKeyProblem(url: string) {
  return {
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail: "Required header 'Idempotency-Key' is not present.",
    instance: url.split('?')[0],
  };
}
