import { VersionedCache } from '../shared/versioned-cache.ts';

/** A rendered page, cut where the browser's CSRF token goes (product.views.ts CSRF_SLOT). */
export interface CutPage {
  before: string;
  /** Undefined when the page has no form, hence no place for a token. */
  after: string | undefined;
}

/** The page as one browser gets it: its own CSRF token in its place, if the page has one. */
export function withToken(page: CutPage, token: string): string {
  return page.after === undefined ? page.before : page.before + token + page.after;
}

/** About 1,000 product pages of 16 KB and as many store page lists. */
const PRODUCT_PAGES_BYTES = 16 * 1024 * 1024;
const LIST_PAGES_BYTES = 16 * 1024 * 1024;
const ENTRY_BYTES = 200;

/**
 * Rendered store pages, least recently used dropped first. Nothing here is ever invalidated:
 * a product page is kept under the product's version (its modifiedOn) and a list under the
 * versions of the products on it, and those are read through the caches the API keeps current
 * (the ListCache's heads, dropped on the change feed's `catalog` notices and this instance's own
 * writes), so a change makes a new key and the next request renders it.
 */
export class StorePageCache {
  readonly products = new VersionedCache<CutPage>(
    PRODUCT_PAGES_BYTES,
    (page) => (page.before.length + (page.after?.length ?? 0)) * 2 + ENTRY_BYTES,
  );
  readonly lists = new VersionedCache<string>(LIST_PAGES_BYTES, (page) => page.length * 2 + ENTRY_BYTES);
}
