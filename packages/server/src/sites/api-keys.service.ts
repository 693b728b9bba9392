import type { Clock } from '../shared/clock.ts';
import type { ApiKeyCredential } from '../http/credential.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import { queryPrepared, type DatabaseHandle, type Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { digest, digestHex, newSecret } from '../shared/secrets.ts';
import { GONE, VersionedCache } from '../shared/versioned-cache.ts';
import { effectiveScopes } from '../shared/scopes.ts';
import { parseKeyScopes } from './api-key-scopes.ts';

export const API_KEY_PREFIX = 'emp_key_';

/** How often a key's last-used time is written: once a minute is enough to show it, and cheap. */
const LAST_USED_RESOLUTION_MS = 60_000;

type KeyDeps = Pick<DatabaseHandle, 'db' | 'pool'> & { clock: Clock; keys: ApiKeyCache };

/** Live keys by digest (hex), so most requests authenticate without a query. */
export type ApiKeyCache = VersionedCache<{ credential: ApiKeyCredential; lastUsedAt: number }>;

/** Room for about 10,000 keys in use at once; the least recently used are looked up again. */
const KEY_CACHE_BYTES = 2 * 1024 * 1024;
const KEY_ENTRY_BYTES = 200;

/** The cache, emptied of a key the moment the change feed announces its revocation. */
export function apiKeyCache(feed?: ChangeFeed): ApiKeyCache {
  const cache: ApiKeyCache = new VersionedCache(
    KEY_CACHE_BYTES,
    () => KEY_ENTRY_BYTES,
    () => feed?.live ?? false,
  );
  feed?.on('change', (kind: string, digestHex: string) => {
    if (kind === 'api_key') cache.invalidate(digestHex, GONE);
  });
  feed?.on('live', () => cache.reset());
  return cache;
}

export async function createApiKey(
  deps: { db: Db; clock: Clock; ids: Ids },
  input: { websiteId: string; name?: string; scopes: string },
): Promise<{ id: string; apiKey: string }> {
  const parsed = parseKeyScopes(input.scopes);
  if ('invalid' in parsed) {
    throw new ValidationError(
      parsed.invalid === ''
        ? 'scopes: at least one scope'
        : `scopes: unknown scope "${parsed.invalid}"; give website.* scopes or the platform's key permissions (CONTACT, CONTACT_READONLY, DISCOUNTS, DISCOUNTS_READONLY)`,
    );
  }
  const website = await deps.db
    .selectFrom('websites')
    .select('id')
    .where('id', '=', input.websiteId)
    .executeTakeFirst();
  if (!website) throw new NotFound(`website not found: ${input.websiteId}`);
  const apiKey = newSecret(API_KEY_PREFIX);
  const id = deps.ids.objectId();
  await deps.db
    .insertInto('api_keys')
    .values({
      id,
      website_id: input.websiteId,
      name: input.name?.trim() || 'API key',
      scopes: parsed.scopes,
      key_digest: digest(apiKey),
      // A credential: its times are the service's, whatever its website's clock says.
      created_at: deps.clock.now(),
    })
    .execute();
  return { id, apiKey };
}

/** Revokes a key; this process's cache forgets it at once, other processes' when notified. */
export async function revokeApiKey(
  deps: { db: Db; clock: Clock; keys?: ApiKeyCache },
  apiKey: string,
): Promise<boolean> {
  const keyDigest = digest(apiKey);
  const result = await deps.db
    .updateTable('api_keys')
    .set({ revoked_at: deps.clock.now() })
    .where('key_digest', '=', keyDigest)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  deps.keys?.invalidate(keyDigest.toString('hex'), GONE);
  return result.numUpdatedRows > 0n;
}

/**
 * Revokes a key of the website by its id, as the owner pages do (they never see the secret
 * again). Every server refuses it as soon as the database announces the change.
 */
export async function revokeApiKeyById(
  deps: { db: Db; clock: Clock },
  websiteId: string,
  keyId: string,
): Promise<void> {
  const result = await deps.db
    .updateTable('api_keys')
    .set({ revoked_at: deps.clock.now() })
    .where('id', '=', keyId)
    .where('website_id', '=', websiteId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new NotFound(`API key not found: ${keyId}`);
}

/** The website's live keys, newest first, for the owner pages. */
export function listApiKeys(db: Db, websiteId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'scopes', 'created_at', 'last_used_at'])
    .where('website_id', '=', websiteId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .execute();
}

/** The live key for a presented secret, or undefined. Looked up by digest: the secret is never stored. */
export function authenticateApiKey(
  deps: KeyDeps,
  presented: string,
): ApiKeyCredential | undefined | Promise<ApiKeyCredential | undefined> {
  const cacheKey = digestHex(presented);
  const key = deps.keys.latest(cacheKey);
  // Most calls: a cached key whose use was recorded within the minute, answered at once.
  if (key && deps.clock.now().getTime() - key.lastUsedAt < LAST_USED_RESOLUTION_MS) return key.credential;
  return lookUpKey(deps, cacheKey);
}

/** authenticateApiKey's path through the database: a key not cached, or a use to record. */
async function lookUpKey(deps: KeyDeps, cacheKey: string): Promise<ApiKeyCredential | undefined> {
  let key = deps.keys.latest(cacheKey);
  if (!key) {
    const keyDigest = Buffer.from(cacheKey, 'hex');
    const generation = deps.keys.generation;
    const [row] = await queryPrepared(
      deps.pool,
      deps.db
        .selectFrom('api_keys')
        .select(['id', 'website_id', 'scopes', 'last_used_at'])
        .where('key_digest', '=', keyDigest)
        .where('revoked_at', 'is', null),
    );
    if (!row) return undefined;
    const credential: ApiKeyCredential = {
      kind: 'api_key',
      id: row.id,
      websiteId: row.website_id,
      scopes: row.scopes,
      held: effectiveScopes(row.scopes),
    };
    key = { credential, lastUsedAt: row.last_used_at?.getTime() ?? 0 };
    deps.keys.set(cacheKey, 0, key, generation);
  }
  const now = deps.clock.now();
  if (now.getTime() - key.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    key.lastUsedAt = now.getTime();
    await deps.db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', key.credential.id)
      .execute();
  }
  return key.credential;
}
