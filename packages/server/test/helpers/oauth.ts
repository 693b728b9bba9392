import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createClient } from '../../src/oauth/clients.service.ts';
import { issueCode, type CodeRequest } from '../../src/oauth/codes.ts';
import type { Scope } from '../../src/shared/scopes.ts';
import { TOKEN_PATH } from '../../src/oauth/token.routes.ts';
import { testApp, type Site, type TestAppOptions, type TestContext } from './test-app.ts';

export const REDIRECT_URI = 'https://app.example.com/callback';
export const USER_AGENT = 'inventory-sync/2.1';

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export interface App {
  clientId: string;
  clientSecret: string;
  authorization: string;
}

/** A registered client (app) of a new developer. */
export async function registerApp(ctx: TestContext): Promise<App> {
  const site = await ctx.site();
  const owner = await ctx.db
    .selectFrom('websites')
    .innerJoin('owners', 'owners.id', 'websites.owner_id')
    .select('owners.email')
    .where('websites.id', '=', site.websiteId)
    .executeTakeFirstOrThrow();
  const { clientId, clientSecret } = await createClient(ctx, {
    ownerEmail: owner.email,
    name: 'Inventory Sync',
    redirectUris: [REDIRECT_URI],
  });
  return { clientId, clientSecret, authorization: basic(clientId, clientSecret) };
}

/**
 * The set-up the OAuth tests share: a test app (silent unless `options` say otherwise), a
 * registered app, and a website of another owner for it to connect to.
 */
export async function oauthTestApp(
  options: TestAppOptions = {},
): Promise<{ ctx: TestContext; app: App; site: Site }> {
  const ctx = await testApp({ logLevel: 'silent', ...options });
  const app = await registerApp(ctx);
  const site = await ctx.site();
  return { ctx, app, site };
}

/** The owner's Allow for `app` on `websiteId`, as the consent page gives it. */
export async function allow(
  ctx: TestContext,
  app: App,
  websiteId: string,
  options: Partial<Pick<CodeRequest, 'offline' | 'codeChallenge' | 'redirectUri'>> & {
    scopes?: Scope[];
  } = {},
): Promise<string> {
  const website = await ctx.db
    .selectFrom('websites')
    .select('owner_id')
    .where('id', '=', websiteId)
    .executeTakeFirstOrThrow();
  return issueCode(ctx, {
    clientId: app.clientId,
    websiteId,
    ownerId: website.owner_id,
    scopes: options.scopes ?? ['website.products'],
    offline: options.offline ?? true,
    redirectUri: options.redirectUri ?? REDIRECT_URI,
    codeChallenge: options.codeChallenge ?? null,
  });
}

/** POST to the token endpoint; JSON unless `form`. */
export function tokenRequest(
  ctx: TestContext,
  body: Record<string, unknown> | string,
  options: {
    authorization?: string;
    form?: boolean;
    contentType?: string;
    userAgent?: string | null;
    headers?: Record<string, string>;
    /** The connecting address; light-my-request's 127.0.0.1 otherwise. */
    remoteAddress?: string;
  } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string | undefined> = {
    'content-type':
      options.contentType ?? (options.form ? 'application/x-www-form-urlencoded' : 'application/json'),
  };
  // undefined: light-my-request then sends no User-Agent at all (null here means "none").
  headers['user-agent'] = options.userAgent === null ? undefined : (options.userAgent ?? USER_AGENT);
  if (options.authorization) headers.authorization = options.authorization;
  Object.assign(headers, options.headers);
  const payload =
    typeof body === 'string'
      ? body
      : options.form
        ? new URLSearchParams(body as Record<string, string>).toString()
        : JSON.stringify(body);
  return ctx.app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers,
    payload,
    remoteAddress: options.remoteAddress,
  });
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  access_token_expires_at: string;
  refresh_token_expires_at?: string;
}

/** Redeems a code, asserting success. */
export async function redeem(ctx: TestContext, app: App, code: string): Promise<Tokens> {
  const res = await tokenRequest(
    ctx,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    { authorization: app.authorization },
  );
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/**
 * The tokens an app holds once connected to `websiteId`: the owner's Allow (see `allow` for the
 * options), then the code redeemed at the token endpoint, asserting success.
 */
export async function grantTokens(
  ctx: TestContext,
  app: App,
  websiteId: string,
  options: Parameters<typeof allow>[3] = {},
): Promise<Tokens> {
  return redeem(ctx, app, await allow(ctx, app, websiteId, options));
}

export function refresh(ctx: TestContext, app: App, refreshToken: string): Promise<LightMyRequestResponse> {
  return tokenRequest(
    ctx,
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    { authorization: app.authorization },
  );
}

/** An API call with an access token: the product list of its website. */
export function apiCall(
  ctx: TestContext,
  accessToken: string,
  options: { method?: 'GET' | 'POST'; url?: string; payload?: object } = {},
) {
  return ctx.app.inject({
    method: options.method ?? 'GET',
    url: options.url ?? '/1.1/commerce/products',
    headers: { authorization: `Bearer ${accessToken}`, 'user-agent': USER_AGENT },
    ...(options.payload && { payload: options.payload }),
  });
}

export function assertOAuthError(
  res: LightMyRequestResponse,
  status: number,
  error: string,
  description?: RegExp,
) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
  assert.equal(body.error, error);
  if (description) assert.match(body.error_description, description);
  assert.equal(res.headers['cache-control'], 'no-store');
}

/**
 * The app's pool, recording the text of each statement sent through it: a batching queue made
 * over it (db/call-batches.ts) is a queue of its own, whose round trips a test can count.
 */
export function recordingPool(ctx: TestContext): { pool: TestContext['api']['pool']; statements: string[] } {
  const statements: string[] = [];
  const pool = {
    query: (query: { text: string }) => {
      statements.push(query.text);
      return ctx.api.pool.query(query as never);
    },
  } as unknown as TestContext['api']['pool'];
  return { pool, statements };
}
