import type { FastifyInstance, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Forbidden, Unauthorized, ValidationError } from '../shared/errors.ts';
import type { Credential } from './credential.ts';

/** A credential found in memory comes back as is; one the database must be asked for, as a promise. */
export type CredentialResolver = (
  presented: string,
) => Credential | undefined | Promise<Credential | undefined>;

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * Every API request: a non-empty User-Agent, a Bearer credential from the Authorization header
 * only (security RS-1), and the route's scope (RS-2, RS-4). Runs before the body is validated.
 *
 * A callback hook rather than async: a credential in the cache, as on most requests, is found
 * without a promise or a turn of the microtask queue (bench/README.md, "Get by id").
 */
export function registerAuthentication(app: FastifyInstance, resolve: CredentialResolver): void {
  app.decorateRequest('credential', undefined);
  app.addHook('onRequest', (request, _reply, done) => {
    const userAgent = request.headers['user-agent'];
    if (!userAgent || !userAgent.trim()) {
      return done(
        new ValidationError('User-Agent: the header is required; describe the calling application', null),
      );
    }
    const header = request.headers.authorization;
    if (!header) return done(new Unauthorized('Authorization: a Bearer API key or access token is required'));
    const presented = BEARER.exec(header)?.[1];
    const found = presented ? resolve(presented) : undefined;
    // No named closure a request: tsx (esbuild's keepNames) gives each a defineProperty of its name.
    if (found instanceof Promise) found.then((credential) => admit(request, done, credential), done);
    else admit(request, done, found);
  });
}

/** Lets the request on with its credential, or refuses it. */
function admit(
  request: FastifyRequest,
  done: HookHandlerDoneFunction,
  credential: Credential | undefined,
): void {
  if (!credential) return done(unknownCredential());
  request.credential = credential;
  done();
}

function unknownCredential(): Unauthorized {
  return new Unauthorized(
    'Authorization: the credential is unknown, expired or revoked',
    'Bearer realm="emporium", error="invalid_token"',
  );
}

/**
 * Checks the route's scope before the body is read; registered after the rate limit so a refused
 * call still counts.
 */
export function registerScopeCheck(app: FastifyInstance): void {
  // A callback, not async: no promise and no microtask turn on every request (app.ts).
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const { scope, oauthScope } = request.routeOptions.config;
    if (!scope || !request.credential) return done();
    const held = request.credential.held;
    // A route's oauthScope counts for OAuth tokens only (platform-surface 0.7: contacts' reads
    // also take website.profiles.read, "OAuth only").
    const byOAuth =
      oauthScope !== undefined && request.credential.kind === 'access_token' && held.has(oauthScope);
    if (!held.has(scope) && !byOAuth) {
      return done(new Forbidden(`this credential lacks the ${scope} scope`, 'MISSING_SCOPE'));
    }
    done();
  });
}

/** The website a request acts on: always the credential's own (a key never reaches another). */
export function websiteOf(request: FastifyRequest): string {
  if (!request.credential)
    throw new Unauthorized('Authorization: a Bearer API key or access token is required');
  return request.credential.websiteId;
}
