import type { ChangeFeed } from '../db/change-feed.ts';
import { VersionedCache } from '../shared/versioned-cache.ts';

/** What the token endpoint needs of a client to authenticate it. */
export interface ClientSecret {
  id: string;
  name: string;
  secretDigest: Buffer;
}

/** Registered clients by id, so that most token requests authenticate their client without a query. */
export type ClientCache = VersionedCache<ClientSecret>;

/** Room for about 5,000 clients; the least recently used are read again. */
const CACHE_BYTES = 1024 * 1024;
const ENTRY_BYTES = 200;

/**
 * The cache, emptied whenever the database announces a changed client (a rotated secret:
 * db/functions/emporium_client_changed.sql) and by this process's own rotations at once. Trusted only while
 * the change feed is live: otherwise every token request reads its client.
 */
export function clientCache(feed?: ChangeFeed): ClientCache {
  const cache: ClientCache = new VersionedCache(
    CACHE_BYTES,
    () => ENTRY_BYTES,
    () => feed?.live ?? false,
  );
  feed?.on('change', (kind: string) => {
    if (kind === 'oauth_client') cache.reset();
  });
  feed?.on('live', () => cache.reset());
  return cache;
}
