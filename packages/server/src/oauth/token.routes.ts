import { basicCredentials } from '../http/basic-credentials.ts';
import type { FastifyError, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { DomainError, OAuthError, RateLimited } from '../shared/errors.ts';
import { registerRateLimit } from '../http/rate-limit.ts';
import { authenticateClient } from './clients.service.ts';
import { redeemCode } from './grants/authorization-code.ts';
import { refreshTokens } from './grants/refresh-token.ts';
import type { TokenRequest } from './grants/request.ts';
import { registerTokenBodyParsers, TOKEN_BODY_LIMIT } from './token-body.ts';
import type { GrantDeps } from './tokens.ts';

export const TOKEN_PATH = '/api/1/login/oauth/provider/tokens';

const GRANTS = {
  authorization_code: redeemCode,
  refresh_token: refreshTokens,
};

const unknownClient = () => new OAuthError('invalid_client', 'client authentication failed');

/** Percent-decoding of RFC 6749 2.3.1 (form encoding): `+` is a space. */
/**
 * The client id and secret of `Authorization: Basic` (the only way accepted, security TE-1,
 * TE-3); anything missing or malformed is `invalid_client`, never a crash.
 */
function presentedClient(request: FastifyRequest): { clientId: string; clientSecret: string } {
  const credentials = basicCredentials(request.headers.authorization);
  if (!credentials) throw unknownClient();
  return credentials;
}

/** Fastify's own errors (body size, content type, parsing) in the endpoint's RFC 6749 shape. */
function asOAuthError(error: FastifyError): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  if (error instanceof RateLimited) {
    return new OAuthError('temporarily_unavailable', error.message, 429, error.retryAfterSeconds);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new OAuthError(
      'invalid_request',
      'Content-Type: use application/json or application/x-www-form-urlencoded',
    );
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new OAuthError('invalid_request', `body: larger than ${TOKEN_BODY_LIMIT} bytes`);
  }
  if (error instanceof DomainError && error.status < 500)
    return new OAuthError('invalid_request', error.message);
  if (error.statusCode && error.statusCode < 500) return new OAuthError('invalid_request', error.message);
  return undefined;
}

/**
 * POST {auth_url}/api/1/login/oauth/provider/tokens (api-details 8). Order of checks: User-Agent
 * (SEC-43, before anything else), the rate limit (before any secret is verified, AB-1), the
 * body, the client's Basic credentials, then the grant.
 */
export const tokenRoutes: FastifyPluginAsync<{
  deps: GrantDeps;
  rateLimitPerMinute: number;
  redis?: Redis;
}> = async (app, { deps, rateLimitPerMinute, redis }) => {
  app.addHook('onRequest', async (request) => {
    if (!request.headers['user-agent']?.trim()) {
      throw new OAuthError('invalid_request', 'the User-Agent header is required (SEC-43)');
    }
  });
  registerRateLimit(app, rateLimitPerMinute, redis, 'emporium:token:');
  registerTokenBodyParsers(app);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const oauth =
      asOAuthError(error) ?? new OAuthError('server_error', 'something went wrong on our side', 500);
    if (oauth.status >= 500) request.log.error({ err: error }, 'token request failed');
    if (oauth.status === 401) reply.header('www-authenticate', 'Basic realm="emporium"');
    if (oauth.retryAfterSeconds !== undefined) reply.header('retry-after', String(oauth.retryAfterSeconds));
    return reply
      .code(oauth.status)
      .header('cache-control', 'no-store')
      .send({ error: oauth.code, error_description: oauth.message });
  });

  app.post(
    TOKEN_PATH,
    {
      bodyLimit: TOKEN_BODY_LIMIT,
      schema: {
        tags: ['OAuth'],
        summary: 'Exchange a code or a refresh token for tokens',
        security: [{ basic: [] }],
      },
    },
    async (request, reply) => {
      const { clientId, clientSecret } = presentedClient(request);
      const tokenRequest: TokenRequest = {
        fields: (request.body as Record<string, string> | undefined) ?? {},
        ip: request.ip,
      };
      const client = await authenticateClient(deps, clientId, clientSecret);
      if (!client) throw unknownClient();
      const grantType = tokenRequest.fields.grant_type ?? 'authorization_code';
      const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType as keyof typeof GRANTS] : undefined;
      if (!grant) {
        throw new OAuthError('unsupported_grant_type', `grant_type: ${grantType} is not supported`);
      }
      const tokens = await grant(deps, client, tokenRequest);
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(tokens);
    },
  );
};
