import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { Clock } from '../shared/clock.ts';
import type { AccessTokenCredential } from '../http/credential.ts';
import { batchesPerPool, inCallOrder } from '../db/call-batches.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import { queryPrepared, type DatabaseHandle } from '../db/database.ts';
import type { Ids } from '../shared/ids.ts';
import { digestHex } from '../shared/secrets.ts';
import { effectiveScopes } from '../shared/scopes.ts';
import { VersionedCache } from '../shared/versioned-cache.ts';

/** How often a grant's last-used time is written: once a minute is enough to show it. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Live access tokens by digest (hex), so most API calls authenticate without a query. */
export type AccessTokenCache = VersionedCache<{
  credential: AccessTokenCredential;
  expiresAt: number;
  lastUsedAt: number;
}>;

/** Room for about 10,000 tokens in use at once; the least recently used are looked up again. */
const TOKEN_CACHE_BYTES = 3 * 1024 * 1024;
const TOKEN_ENTRY_BYTES = 300;

/**
 * The cache, emptied whenever the change feed announces a revoked grant: revocations are rare,
 * and a token's grant is not worth indexing for them. Trusted only while the feed is live.
 */
export function accessTokenCache(feed?: ChangeFeed): AccessTokenCache {
  const cache: AccessTokenCache = new VersionedCache(
    TOKEN_CACHE_BYTES,
    () => TOKEN_ENTRY_BYTES,
    () => feed?.live ?? false,
  );
  feed?.on('change', (kind: string) => {
    // A site's clock moved: its tokens' expiry times moved with it (testing/site-clock.ts).
    if (kind === 'oauth_grant' || kind === 'site_clock') cache.reset();
  });
  feed?.on('live', () => cache.reset());
  return cache;
}

type Deps = Pick<DatabaseHandle, 'db' | 'pool'> & { clock: Clock; ids: Ids; tokens: AccessTokenCache };

/** What oauth_authenticate answers of a live token. */
interface TokenRow {
  grant_id: string;
  expires_at: Date;
  client_id: string;
  website_id: string;
  scopes: string[];
  last_used_at: Date | null;
}

/**
 * Tokens looked up together share a round trip and a commit (db/call-batches.ts): a burst of
 * first calls with new tokens, each of which confirms its pair, writes once.
 */
export const tokenLookups = batchesPerPool(
  async (pool: pg.Pool, calls: { presented: Buffer; moment: Date }[]) => {
    const query = CompiledQuery.raw(
      `SELECT x.n, a.* FROM unnest($1::bytea[], $2::timestamptz[]) WITH ORDINALITY AS x(p, m, n)
       CROSS JOIN LATERAL oauth_authenticate(x.p, x.m) AS a`,
      [calls.map((c) => c.presented), calls.map((c) => c.moment)],
    );
    return inCallOrder(await queryPrepared<TokenRow & { n: string }>(pool, query as never), calls.length);
  },
);

/**
 * The credential of a live access token, or undefined: unknown, expired, revoked, or of a pair
 * retired by its sibling's confirmation. A token is cached once its pair is confirmed; a
 * revocation empties the cache of every instance as the database announces it (security RS-5),
 * and while an instance cannot hear the announcements it asks the database every time. The
 * first call with the token of a refreshed pair confirms that pair (api-details 8), in the same
 * round trip (the database's oauth_authenticate, db/functions/oauth_authenticate.sql): of many
 * parallel first calls one confirms and all succeed (security RT-6); a call with a sibling whose
 * pair lost the race fails.
 */
export function authenticateAccessToken(
  deps: Deps,
  presented: string,
): AccessTokenCredential | undefined | Promise<AccessTokenCredential | undefined> {
  const cacheKey = digestHex(presented);
  const now = deps.clock.now().getTime();
  const token = deps.tokens.latest(cacheKey);
  // Most calls: a cached token whose use was recorded within the minute, answered at once.
  if (token && token.expiresAt > now && now - token.lastUsedAt < LAST_USED_RESOLUTION_MS) {
    return token.credential;
  }
  return lookUpToken(deps, cacheKey);
}

/** authenticateAccessToken's path through the database: a token not cached, or a use to record. */
async function lookUpToken(deps: Deps, cacheKey: string): Promise<AccessTokenCredential | undefined> {
  const now = deps.clock.now();
  let token = deps.tokens.latest(cacheKey);
  if (!token) {
    const tokenDigest = Buffer.from(cacheKey, 'hex');
    const generation = deps.tokens.generation;
    // Confirms a refreshed pair on its token's first use, and records the grant's use then.
    const row = await tokenLookups(deps.pool).call({ presented: tokenDigest, moment: now });
    if (!row) return undefined;
    token = {
      credential: {
        kind: 'access_token',
        id: row.grant_id,
        clientId: row.client_id,
        websiteId: row.website_id,
        scopes: row.scopes,
        held: effectiveScopes(row.scopes),
      },
      expiresAt: row.expires_at.getTime(),
      lastUsedAt: row.last_used_at?.getTime() ?? 0,
    };
    deps.tokens.set(cacheKey, 0, token, generation);
  }
  if (token.expiresAt <= now.getTime()) return undefined;
  if (now.getTime() - token.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    token.lastUsedAt = now.getTime();
    await deps.db
      .updateTable('oauth_grants')
      .set({ last_used_at: now })
      .where('id', '=', token.credential.id)
      .execute();
  }
  return token.credential;
}
