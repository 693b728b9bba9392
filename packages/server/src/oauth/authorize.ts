import type { Db } from '../db/database.ts';
import { parseScopeList, type Scope } from '../shared/scopes.ts';
import { OBJECT_ID } from '../shared/ids.ts';

/** Query parameters as Fastify parses them: a repeated parameter is a list. */
export type AuthorizeQuery = Record<string, string | string[] | undefined>;

/** An authorization request every check accepted. */
export interface AuthorizeRequest {
  client: { id: string; name: string; redirect_uris: string[] };
  redirectUri: string;
  scopes: Scope[];
  state: string;
  websiteId: string | null;
  offline: boolean;
  codeChallenge: string | null;
}

export type AuthorizeOutcome =
  | { ok: true; request: AuthorizeRequest }
  /** The client or its redirect URI cannot be trusted: an error page, never a redirect (AZ-1). */
  | { ok: false; page: string }
  /** Sent back to the trusted redirect URI as `error` (with `state` when it was valid). */
  | {
      ok: false;
      redirectUri: string;
      error: 'invalid_request' | 'invalid_scope';
      description: string;
      state?: string;
    };

const STATE = /^[A-Za-z0-9._~-]{1,500}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

type Fail = { error: 'invalid_request' | 'invalid_scope'; description: string };
type Check = (query: AuthorizeQuery, state: string | undefined) => Fail | undefined;

const single = (query: AuthorizeQuery, name: string) => {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The checks after client and redirect URI are trusted, in order; the first failure is sent
 * back to the app (api-details 8, security AZ-3 to AZ-5, AZ-14).
 */
const CHECKS: [name: string, check: Check][] = [
  [
    'no repeated parameter',
    (query) => {
      const repeated = Object.keys(query).find((name) => Array.isArray(query[name]));
      return repeated
        ? { error: 'invalid_request', description: `${repeated}: given more than once` }
        : undefined;
    },
  ],
  [
    'state',
    (_query, state) =>
      state === undefined
        ? { error: 'invalid_request', description: 'state: required, 1 to 500 of A-Z a-z 0-9 - . _ ~' }
        : undefined,
  ],
  [
    'scope',
    (query) => {
      const scope = single(query, 'scope');
      if (!scope) return { error: 'invalid_scope', description: 'scope: required' };
      const parsed = parseScopeList(scope);
      if ('invalid' in parsed) {
        return { error: 'invalid_scope', description: `scope: unknown scope "${parsed.invalid}"` };
      }
      return undefined;
    },
  ],
  [
    'website_id',
    (query) => {
      const websiteId = single(query, 'website_id');
      return websiteId !== undefined && !OBJECT_ID.test(websiteId)
        ? { error: 'invalid_request', description: 'website_id: not a site id' }
        : undefined;
    },
  ],
  [
    'access_type',
    (query) => {
      const accessType = single(query, 'access_type');
      return accessType !== undefined && accessType !== 'offline'
        ? { error: 'invalid_request', description: 'access_type: offline, or leave it out' }
        : undefined;
    },
  ],
  [
    'PKCE',
    (query) => {
      const challenge = single(query, 'code_challenge');
      const method = single(query, 'code_challenge_method');
      if (challenge === undefined && method === undefined) return undefined;
      if (method !== 'S256') {
        return { error: 'invalid_request', description: 'code_challenge_method: only S256 is supported' };
      }
      if (challenge === undefined || !PKCE_CHALLENGE.test(challenge)) {
        return {
          error: 'invalid_request',
          description: 'code_challenge: 43 to 128 characters of A-Z a-z 0-9 - . _ ~',
        };
      }
      return undefined;
    },
  ],
];

/**
 * GET authorize's parameters. Client and redirect URI first, before any sign-in, and compared
 * byte for byte with the registration (security AZ-1); then the named checks in order.
 */
export async function checkAuthorizeRequest(db: Db, query: AuthorizeQuery): Promise<AuthorizeOutcome> {
  const clientId = single(query, 'client_id');
  const client =
    clientId && OBJECT_ID.test(clientId)
      ? await db
          .selectFrom('oauth_clients')
          .select(['id', 'name', 'redirect_uris'])
          .where('id', '=', clientId)
          .executeTakeFirst()
      : undefined;
  if (!client) return { ok: false, page: 'The app that sent you here is not registered with Emporium.' };
  const redirectUri = single(query, 'redirect_uri');
  if (redirectUri === undefined || !client.redirect_uris.includes(redirectUri)) {
    return { ok: false, page: `${client.name} sent you here with a return address it has not registered.` };
  }
  const rawState = single(query, 'state');
  const state = rawState !== undefined && STATE.test(rawState) ? rawState : undefined;
  for (const [, check] of CHECKS) {
    const failed = check(query, state);
    if (failed) return { ok: false, redirectUri, ...failed, ...(state !== undefined && { state }) };
  }
  const parsed = parseScopeList(single(query, 'scope')!) as { scopes: Scope[] };
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      scopes: parsed.scopes,
      state: state!,
      websiteId: single(query, 'website_id') ?? null,
      offline: single(query, 'access_type') === 'offline',
      codeChallenge: single(query, 'code_challenge') ?? null,
    },
  };
}

/** The redirect URI with parameters added, keeping any query it was registered with. */
export function withParams(redirectUri: string, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.append(name, value);
  return url.toString();
}
