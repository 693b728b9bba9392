import { selectProducts } from '../catalog/products.repo.ts';
import type { ProductRow } from '../catalog/products.mapper.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { html } from '../pages/html.ts';
import { storePage, type StoreFrame } from './layout.ts';
import { productCard, productPage, CSRF_SLOT } from './product.views.ts';
import type { CutPage, StorePageCache } from './page-cache.ts';
import {
  enabledStorePages,
  findStore,
  findStoreAndPage,
  shownProductHead,
  shownProductPage,
  type StorePageLink,
} from './store.repo.ts';
import type { StoreDeps } from './store-deps.ts';
import { storePagePath } from '../shared/store-urls.ts';
import { settledPage } from '../pagination/settled-page.ts';
import { notice } from '../pages/notice.ts';

/** Products a store page lists at a time: a grid of 2, 3 or 4 columns fills evenly. */
export const STORE_PAGE_SIZE = 24;
/** Past this, a shopper searches; a deep offset is a slow query for nobody. */
const MAX_PAGE = 400;

export type ReadDeps = StoreDeps & { pages: StorePageCache };

const NOT_SHOWN = 'There is no such product in this store.';

async function storeOf(deps: ReadDeps, websiteId: string): Promise<StoreFrame> {
  const store = await findStore(deps.api, websiteId);
  if (!store) throw new NotFound('There is no such store.');
  return { websiteId, title: store.title };
}

/**
 * A product's page at its address: a visible product on an enabled store page of the website.
 * Served from memory while the product's version is the one the API's caches know.
 */
export async function productPageAt(
  deps: ReadDeps,
  websiteId: string,
  storePageSlug: string,
  urlSlug: string,
): Promise<CutPage> {
  const {
    rows: [head],
  } = await deps.api.lists.pageHeads(websiteId, `store product ${storePageSlug}/${urlSlug}`, () =>
    shownProductHead(deps.api, websiteId, storePageSlug, urlSlug),
  );
  if (!head) throw new NotFound(NOT_SHOWN);
  const cached = deps.pages.products.at(head.id, head.version);
  if (cached) return cached;
  const generation = deps.pages.products.generation; // before the query: see versioned-cache.ts
  const [row] = await selectProducts(deps.api.db, websiteId, [head.id]);
  // Changed since its head was read: shown only if it is still at this address and visible.
  if (!row || !row.is_visible || row.store_page_slug !== storePageSlug || row.url_slug !== urlSlug) {
    throw new NotFound(NOT_SHOWN);
  }
  const [before = '', after] = productPage(await storeOf(deps, websiteId), row).value.split(CSRF_SLOT);
  const page = { before, after };
  deps.pages.products.set(row.id, row.modified_on.getTime(), page, generation);
  return page;
}

/** `?page=2`: which page of a list, from 1. */
export function pageNumber(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_PAGE) {
    throw new ValidationError(`page: a whole number from 1 to ${MAX_PAGE}`);
  }
  return n;
}

/** A store page's visible products, newest first, a page at a time. */
export async function storePageList(
  deps: ReadDeps,
  websiteId: string,
  storePageSlug: string,
  n: number,
): Promise<string> {
  const found = await findStoreAndPage(deps.api, websiteId, storePageSlug);
  if (!found) throw new NotFound('There is no such store.');
  const storePage = found.page;
  if (!storePage) throw new NotFound('There is no such page in this store.');
  const store = { websiteId, title: found.title };
  const read = () =>
    shownProductPage(deps.api, websiteId, storePage.id, (n - 1) * STORE_PAGE_SIZE, STORE_PAGE_SIZE + 1);
  return settledPage(async (fresh) => {
    const heads = fresh
      ? await read()
      : (await deps.api.lists.pageHeads(websiteId, `store page ${storePage.id} ${n}`, read)).rows;
    const shown = heads.slice(0, STORE_PAGE_SIZE);
    const key = `${websiteId} ${storePage.id} ${storePage.title} ${store.title} ${n} ${heads.length} ${shown
      .map((h) => `${h.id}@${h.version}`)
      .join(',')}`;
    const cached = deps.pages.lists.at(key, 0);
    if (cached) return { body: cached, complete: true };
    const generation = deps.pages.lists.generation;
    const rows = shown.length
      ? await selectProducts(
          deps.api.db,
          websiteId,
          shown.map((h) => h.id),
        )
      : [];
    const byId = new Map(rows.map((row) => [row.id, row]));
    // Each product as it was listed: one changed or hidden since is left out (settled-page.ts).
    const products = shown.flatMap((h) => {
      const row = byId.get(h.id);
      return row && row.modified_on.getTime() === h.version && row.is_visible ? [row] : [];
    });
    const body = listPage(store, storePage, products, n, heads.length > STORE_PAGE_SIZE).value;
    const complete = products.length === shown.length;
    if (complete) deps.pages.lists.set(key, 0, body, generation);
    return { body, complete };
  });
}

function listPage(store: StoreFrame, page: StorePageLink, products: ProductRow[], n: number, more: boolean) {
  const path = storePagePath(store.websiteId, page.url_slug);
  const title = n > 1 ? `${page.title}, page ${n}` : page.title;
  const body = html`${
    products.length
      ? html`<ul class="products">
          ${products.map((row) => productCard(store.websiteId, row))}
        </ul>`
      : notice(n > 1 ? 'There are no more products.' : 'Nothing here yet. Come back soon.', 'info')
  }
  ${
    n > 1 || more
      ? html`<nav class="pager" aria-label="Pages">
          ${n > 1 ? html`<a href="${n === 2 ? path : `${path}?page=${n - 1}`}" rel="prev">Previous</a>` : html`<span></span>`}
          ${more ? html`<a href="${path}?page=${n + 1}" rel="next">Next</a>` : ''}
        </nav>`
      : ''
  }`;
  return storePage(store, title, body);
}

/** A store's front page: its enabled store pages. */
export async function storeFront(deps: ReadDeps, websiteId: string): Promise<string> {
  const store = await storeOf(deps, websiteId);
  const pages = await enabledStorePages(deps.api, websiteId);
  const body = pages.length
    ? html`<nav aria-label="Store pages">
        <ul class="pages">
          ${pages.map((p) => html`<li><a href="${storePagePath(websiteId, p.url_slug)}">${p.title}</a></li>`)}
        </ul>
      </nav>`
    : notice('This store has nothing on show yet.', 'info');
  return storePage(store, store.title, body).value;
}
