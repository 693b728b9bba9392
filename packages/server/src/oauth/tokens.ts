import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { Ids } from '../ids.ts';
import type { AccessTokenCache } from './access-tokens.ts';
import { digest, newSecret } from '../secrets.ts';

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
}

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

/**
 * Mints an access token, with a refresh token when `refresh` is given, for the grant: the pair
 * that answers a code redemption (`confirmed`) or a refresh (awaiting confirmation, `parentId`
 * being the refresh token presented). Only digests are stored.
 */
export async function mintPair(
  deps: TokenDeps,
  trx: Db,
  grantId: string,
  refresh: { parentId: string | null; confirmed: boolean } | undefined,
): Promise<TokenResponse> {
  const now = deps.clock.now();
  const accessToken = newSecret(ACCESS_TOKEN_PREFIX);
  const accessExpires = new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000);
  const response: TokenResponse = {
    token_type: 'Bearer',
    access_token: accessToken,
    access_token_expires_at: expiresAt(accessExpires),
    expires_in: ACCESS_TOKEN_SECONDS,
    token: accessToken,
  };
  let refreshId: string | null = null;
  if (refresh) {
    const refreshToken = newSecret(REFRESH_TOKEN_PREFIX);
    const refreshExpires = new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000);
    refreshId = deps.ids.objectId();
    await trx
      .insertInto('oauth_refresh_tokens')
      .values({
        id: refreshId,
        grant_id: grantId,
        parent_id: refresh.parentId,
        token_digest: digest(refreshToken),
        expires_at: refreshExpires,
        created_at: now,
        confirmed_at: refresh.confirmed ? now : null,
      })
      .execute();
    response.refresh_token = refreshToken;
    response.refresh_token_expires_at = expiresAt(refreshExpires);
  }
  await trx
    .insertInto('oauth_access_tokens')
    .values({
      token_digest: digest(accessToken),
      grant_id: grantId,
      refresh_id: refreshId,
      pending: refresh !== undefined && !refresh.confirmed,
      expires_at: accessExpires,
      created_at: now,
    })
    .execute();
  return response;
}

/**
 * Confirms a pair minted by a refresh (api-details 8): its refresh token becomes the live one,
 * the token it was refreshed from is retired as confirmed (presenting it again is a replay), and
 * every other unconfirmed pair refreshed from that token is retired, access token included.
 * The caller holds the grant's row lock, so two confirmations of one family never interleave.
 */
export async function confirmPair(deps: TokenDeps, trx: Db, refreshId: string, parentId: string | null) {
  const now = deps.clock.now();
  await trx
    .updateTable('oauth_refresh_tokens')
    .set({ confirmed_at: now })
    .where('id', '=', refreshId)
    .execute();
  await trx
    .updateTable('oauth_access_tokens')
    .set({ pending: false })
    .where('refresh_id', '=', refreshId)
    .execute();
  if (parentId === null) return;
  await trx
    .updateTable('oauth_refresh_tokens')
    .set({ retired_at: now, retired_reason: 'confirmed' })
    .where('id', '=', parentId)
    .where('retired_at', 'is', null)
    .execute();
  const siblings = await trx
    .updateTable('oauth_refresh_tokens')
    .set({ retired_at: now, retired_reason: 'sibling' })
    .where('parent_id', '=', parentId)
    .where('id', '<>', refreshId)
    .where('retired_at', 'is', null)
    .returning('id')
    .execute();
  if (siblings.length) {
    await trx
      .updateTable('oauth_access_tokens')
      .set({ revoked_at: now })
      .where(
        'refresh_id',
        'in',
        siblings.map((s) => s.id),
      )
      .execute();
  }
}

/** Locks the grant's row: every change to a token family happens under it, revocation included. */
export async function lockGrant(trx: Db, grantId: string) {
  return trx.selectFrom('oauth_grants').selectAll().where('id', '=', grantId).forUpdate().executeTakeFirst();
}

/** Revokes the whole family: every token and the code of the grant stop working at once. */
export async function revokeGrant(deps: TokenDeps, trx: Db, grantId: string, reason: string): Promise<void> {
  await trx
    .updateTable('oauth_grants')
    .set({ revoked_at: deps.clock.now(), revoked_reason: reason })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
}
