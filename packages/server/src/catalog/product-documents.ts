import type { ChangeFeed } from '../db/change-feed.ts';
import { GONE, VersionedCache } from '../versioned-cache.ts';

/**
 * A product's JSON representation as sent, rendered once per version (modifiedOn, which strictly
 * increases on every write to a product, its variants or its images: products.service.ts), with
 * its website so that a read by id can check access without a query. Building a 115 KB page from
 * rows on every request costs far more than sending prebuilt bytes (bench/README.md); Buffers keep
 * the bytes off the JavaScript heap and are written to the socket as they are.
 */
export interface ProductDocument {
  websiteId: string;
  json: Buffer;
}

export type ProductDocuments = VersionedCache<ProductDocument>;

/** What an entry costs beyond its bytes: the key, the entry and the Buffer object. */
const ENTRY_BYTES = 200;

/** The cache, kept current by the change feed's `product` notices when there is a feed. */
export function productDocuments(maxBytes: number, feed?: ChangeFeed): ProductDocuments {
  const cache = new VersionedCache<ProductDocument>(
    maxBytes,
    (document) => document.json.length + ENTRY_BYTES,
    () => feed?.live ?? false,
  );
  feed?.on('change', (kind: string, id: string, detail: string | undefined) => {
    if (kind !== 'product') return;
    const version = Number(detail); // `gone` for a deleted product
    cache.invalidate(id, Number.isFinite(version) ? version : GONE);
  });
  feed?.on('live', () => cache.reset());
  return cache;
}
