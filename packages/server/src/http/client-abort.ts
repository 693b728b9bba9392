import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * A client that closes its connection while its request is still arriving. Node then ends the
 * request's stream with `Error: aborted` (code ECONNRESET), which a body parser or an upload passes
 * on. That is the client's doing, not a fault of the service, and no answer can reach it: it is
 * never an error in the log, nor the database being away, whose errors share the code.
 */
export function isClientAbort(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as NodeJS.ErrnoException).code === 'ECONNRESET' &&
    error.message === 'aborted'
  );
}

/** True once the client has closed its connection before the whole request arrived. */
function clientWentAway(request: FastifyRequest): boolean {
  return request.raw.destroyed && !request.raw.complete;
}

/**
 * Such a request is logged once, at info, with its context and what the closing caused (a body
 * parser's `aborted`, an upload's cut-short body). The hook runs before every error handler, the
 * API's, the pages' and the token endpoint's, which then log only the service's own faults.
 */
export function registerClientAbortLog(app: FastifyInstance): void {
  app.addHook('onError', (request, _reply, error, done) => {
    if (clientWentAway(request)) {
      request.log.info(
        { req: request, cause: error.message },
        'the client closed the connection before its request arrived',
      );
    }
    done();
  });
}
