import { ListCache } from '../catalog/list-cache.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import { VersionedCache } from '../shared/versioned-cache.ts';

/** Rendered orders: about 1,500 full orders of 3 lines. */
const DOCUMENT_BYTES = 8 * 1024 * 1024;
const ENTRY_BYTES = 200;

/**
 * What the order list reads from memory: its pages (list-cache.ts, dropped by the `orders`
 * notice of a website), and each order's JSON by version (its modifiedOn). A list page knows
 * the versions it wants from its heads, so a document never needs invalidating: a changed order
 * has a new version, and the old one ages out.
 */
export interface OrderCaches {
  lists: ListCache;
  documents: VersionedCache<Buffer>;
}

export function orderCaches(feed?: ChangeFeed): OrderCaches {
  return {
    lists: new ListCache(feed, 'orders'),
    documents: new VersionedCache<Buffer>(DOCUMENT_BYTES, (json) => json.length + ENTRY_BYTES),
  };
}
