/**
 * Where a website's store lives: `${BASE_URL}/s/<websiteId>`. One instance serves many websites,
 * so each has a root of its own under a prefix no owner page uses (/sites, /apps, /login ...);
 * website ids are 24 hex characters, so no two roots are alike. The website's `url` in the API,
 * every product's `url` and the storefront's own links are all built here.
 */
export function websitePath(websiteId: string): string {
  return `/s/${websiteId}`;
}

export function websiteUrl(baseUrl: string, websiteId: string): string {
  return `${baseUrl}${websitePath(websiteId)}`;
}

/**
 * Paths of a store that are not store pages (the cart and checkout routes, storefront/cart.routes.ts
 * and storefront/checkout.routes.ts, and the downloads, storefront/download.routes.ts): a store
 * page never takes one as its slug, or its list would be unreachable behind them.
 */
export const STORE_PATHS: ReadonlySet<string> = new Set(['cart', 'checkout', 'downloads']);

/** A store page's list of products. */
export function storePagePath(websiteId: string, storePageSlug: string): string {
  return `${websitePath(websiteId)}/${storePageSlug}`;
}

/** A product's page in the store: under its store page, by its `urlSlug`. */
export function productPath(websiteId: string, storePageSlug: string, urlSlug: string): string {
  return `${storePagePath(websiteId, storePageSlug)}/p/${urlSlug}`;
}

export function productUrl(
  baseUrl: string,
  websiteId: string,
  storePageSlug: string,
  urlSlug: string,
): string {
  return `${baseUrl}${productPath(websiteId, storePageSlug, urlSlug)}`;
}
