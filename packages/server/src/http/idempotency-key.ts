import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { bodyUnread, closeAfterAnswer } from './early-close.ts';

/**
 * Routes whose config says `idempotencyKey: true` need the Idempotency-Key header. Without it (or
 * with it empty) the platform answers before reading the body, with 400 and an RFC 7807 body
 * rather than the standard error (platform-surface 0.5): clients match on that body, so it is
 * the same here. A key that is present but malformed is the route's ordinary validation error.
 *
 * An onRequest hook of those routes alone, added as each is defined, so that other requests do
 * not run it at all. It goes first of the route's own hooks, after the instance's
 * (authentication, rate limit, scope).
 */
export function registerIdempotencyKeyCheck(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotencyKey) return;
    route.onRequest = [requireKey, ...[route.onRequest ?? []].flat()];
  });
}

/** Answering ends the request there, without calling done(). */
function requireKey(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const key = request.headers['idempotency-key'];
  if (typeof key === 'string' && key !== '') return done();
  if (bodyUnread(request.raw)) closeAfterAnswer(reply);
  reply.code(400).type('application/problem+json').send(missingKeyProblem(request.url));
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
