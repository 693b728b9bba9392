import type { ChangeFeed } from '../db/change-feed.ts';
import { GONE, VersionedCache } from '../shared/versioned-cache.ts';
import type { ApiVersion } from './product-types.ts';

/**
 * A product's JSON representation as sent, rendered once per version (modifiedOn, which strictly
 * increases on every write to a product, its variants or its images: products.service.ts), with
 * its website so that a read by id can check access without a query. Building a 115 KB page from
 * rows on every request costs far more than sending prebuilt bytes (bench/README.md); Buffers keep
 * the bytes off the JavaScript heap and are written to the socket as they are.
 */
export interface ProductDocument {
  websiteId: string;
  /** The product's JSON: a view of the middle of `alone`. */
  json: Buffer;
  /** `{"products":[<json>]}`: the body of a read of this product by id alone, sent as it is. */
  alone: Buffer;
}

/** What an entry costs beyond its bytes: the key, the entry and the two Buffer objects. */
const ENTRY_BYTES = 300;

/** Each API version's rendering of a product has its own key: `id` for 1.1, `v2 id` for v2. */
function key(api: ApiVersion, id: string): string {
  return api === '1.1' ? id : `${api} ${id}`;
}

/**
 * The rendered documents of every API version in one budget, least recently used dropped first,
 * so memory follows what clients read. A change to a product invalidates every rendering of it.
 */
export class ProductDocuments {
  private readonly cache: VersionedCache<ProductDocument>;

  constructor(maxBytes: number, trusted: () => boolean = () => false) {
    this.cache = new VersionedCache<ProductDocument>(
      maxBytes,
      (document) => document.alone.length + ENTRY_BYTES,
      trusted,
    );
  }

  /** Read before the database query whose result is then given to set(). */
  get generation(): number {
    return this.cache.generation;
  }

  at(api: ApiVersion, id: string, version: number): ProductDocument | undefined {
    return this.cache.at(key(api, id), version);
  }

  latest(api: ApiVersion, id: string): ProductDocument | undefined {
    return this.cache.latest(key(api, id));
  }

  set(api: ApiVersion, id: string, version: number, document: ProductDocument, generation: number): void {
    this.cache.set(key(api, id), version, document, generation);
  }

  /** The product changed to `version` (GONE when deleted), in every API version. */
  invalidate(id: string, version: number): void {
    this.cache.invalidate(key('1.1', id), version);
    this.cache.invalidate(key('v2', id), version);
  }

  reset(): void {
    this.cache.reset();
  }
}

/** The cache, kept current by the change feed's `product` notices when there is a feed. */
export function productDocuments(maxBytes: number, feed?: ChangeFeed): ProductDocuments {
  const cache = new ProductDocuments(maxBytes, () => feed?.live ?? false);
  feed?.on('change', (kind: string, id: string, detail: string | undefined) => {
    if (kind !== 'product') return;
    const version = Number(detail); // `gone` for a deleted product
    cache.invalidate(id, Number.isFinite(version) ? version : GONE);
  });
  feed?.on('live', () => cache.reset());
  return cache;
}
