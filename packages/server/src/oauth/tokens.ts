import type { Clock } from '../shared/clock.ts';
import type { DatabaseHandle, Db } from '../db/database.ts';
import type { Ids } from '../shared/ids.ts';
import type { AccessTokenCache } from './access-tokens.ts';
import type { ClientCache } from './client-cache.ts';
import { digest, newSecret } from '../shared/secrets.ts';

export const ACCESS_TOKEN_PREFIX = 'emp_at_';
export const REFRESH_TOKEN_PREFIX = 'emp_rt_';
export const ACCESS_TOKEN_SECONDS = 30 * 60;
export const REFRESH_TOKEN_SECONDS = 7 * 24 * 60 * 60;

export interface TokenDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  /**
   * This process's cache of access tokens: emptied as soon as a revocation made here commits
   * (other processes empty theirs on the database's notice).
   */
  tokens?: AccessTokenCache;
  /** The registered clients, read once and kept while the change feed is live. */
  clients?: ClientCache;
}

/** What the grants need beyond that: the pool under `db`, as they run prepared statements. */
export type GrantDeps = TokenDeps & { pool: DatabaseHandle['pool'] };

/** The token endpoint's success body (spec: Token response; api-details 8). */
export interface TokenResponse {
  token_type: 'Bearer';
  access_token: string;
  access_token_expires_at: string;
  expires_in: number;
  token: string;
  refresh_token?: string;
  refresh_token_expires_at?: string;
}

/** Unix seconds with three decimals, as a string: `"1795000000.123"`. */
function expiresAt(date: Date): string {
  return (date.getTime() / 1000).toFixed(3);
}

/** A new pair: its secrets as answered, and what is stored of them (digests only). */
export interface NewPair {
  response: TokenResponse;
  access: { digest: Buffer; expiresAt: Date };
  refresh?: { id: string; digest: Buffer; expiresAt: Date };
}

/** Makes the secrets of an access token, with a refresh token when `withRefresh`. */
export function newPair(deps: Pick<TokenDeps, 'ids'>, now: Date, withRefresh: boolean): NewPair {
  const accessToken = newSecret(ACCESS_TOKEN_PREFIX);
  const accessExpires = new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000);
  const pair: NewPair = {
    response: {
      token_type: 'Bearer',
      access_token: accessToken,
      access_token_expires_at: expiresAt(accessExpires),
      expires_in: ACCESS_TOKEN_SECONDS,
      token: accessToken,
    },
    access: { digest: digest(accessToken), expiresAt: accessExpires },
  };
  if (withRefresh) {
    const refreshToken = newSecret(REFRESH_TOKEN_PREFIX);
    const refreshExpires = new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000);
    pair.response.refresh_token = refreshToken;
    pair.response.refresh_token_expires_at = expiresAt(refreshExpires);
    pair.refresh = { id: deps.ids.objectId(), digest: digest(refreshToken), expiresAt: refreshExpires };
  }
  return pair;
}
