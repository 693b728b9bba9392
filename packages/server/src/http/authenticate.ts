import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Forbidden, Unauthorized, ValidationError } from '../errors.ts';
import { effectiveScopes } from '../oauth/scopes.ts';
import type { Credential } from './credential.ts';

export type CredentialResolver = (presented: string) => Promise<Credential | undefined>;

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * Every API request: a non-empty User-Agent, a Bearer credential from the Authorization header
 * only (security RS-1), and the route's scope (RS-2, RS-4). Runs before the body is validated.
 */
export function registerAuthentication(app: FastifyInstance, resolve: CredentialResolver): void {
  app.decorateRequest('credential', undefined);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const userAgent = request.headers['user-agent'];
    if (!userAgent || !userAgent.trim()) {
      throw new ValidationError('User-Agent: the header is required; describe the calling application', null);
    }
    const header = request.headers.authorization;
    if (!header) throw new Unauthorized('Authorization: a Bearer API key or access token is required');
    const match = BEARER.exec(header);
    const credential = match?.[1] ? await resolve(match[1]) : undefined;
    if (!credential) {
      throw new Unauthorized(
        'Authorization: the credential is unknown, expired or revoked',
        'Bearer realm="emporium", error="invalid_token"',
      );
    }
    request.credential = credential;
  });
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
    const held = effectiveScopes(request.credential.scopes);
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
