import type { Clock } from '../shared/clock.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { documentList, listedAlone } from '../http/json-reply.ts';
import { pagination, type CursorCodec } from '../pagination/cursor.ts';
import { settledPage } from '../pagination/settled-page.ts';
import { listPageHeads, type ListCache } from './list-cache.ts';
import { toProduct, type ProductRow } from './products.mapper.ts';
import { toProductV2 } from './v2/products-v2.mapper.ts';
import { cursorAfter, parseListQuery } from './products-list-query.ts';
import * as repo from './products.repo.ts';
import type { ProductDocuments } from './product-documents.ts';
import { notShown, servedTypes, type ApiVersion } from './product-types.ts';
import type { ListProductsQueryT } from './products.schemas.ts';

export const PAGE_SIZE = 50;
export const MAX_IDS = 50;

/** How each API version renders a product. */
const RENDER: Record<ApiVersion, (row: ProductRow, baseUrl: string) => object> = {
  '1.1': toProduct,
  v2: toProductV2,
};

interface ReadDeps extends repo.Reader {
  baseUrl: string;
  documents: ProductDocuments;
}

/** A product's JSON representation, ready to send (see product-documents.ts). */
export type ProductJson = Buffer;

/** Renders the current documents of these products of the website, and caches them. */
async function load(
  deps: ReadDeps,
  api: ApiVersion,
  websiteId: string,
  ids: string[],
): Promise<Map<string, Loaded>> {
  const generation = deps.documents.generation; // before the query: see versioned-cache.ts
  const found = new Map<string, Loaded>();
  for (const row of await repo.selectProducts(deps.db, websiteId, ids, servedTypes(api))) {
    const version = row.modified_on.getTime();
    const { document: json, alone } = listedAlone('products', JSON.stringify(RENDER[api](row, deps.baseUrl)));
    deps.documents.set(api, row.id, version, { websiteId, json, alone }, generation);
    found.set(row.id, { version, json });
  }
  return found;
}

interface Loaded {
  version: number;
  json: ProductJson;
}

/**
 * The documents of these products: the cached one where it is at the head's version, rendered
 * otherwise, which gives the current version (newer than the head's if the product has changed
 * since the head was read).
 */
async function documentsAt(
  deps: ReadDeps,
  api: ApiVersion,
  websiteId: string,
  heads: repo.ProductHead[],
): Promise<Map<string, Loaded>> {
  const found = new Map<string, Loaded>();
  const stale: string[] = [];
  for (const { id, version } of heads) {
    const document = deps.documents.at(api, id, version);
    if (document) found.set(id, { version, json: document.json });
    else stale.push(id);
  }
  if (stale.length) for (const [id, loaded] of await load(deps, api, websiteId, stale)) found.set(id, loaded);
  return found;
}

/**
 * The current documents of these products of the website. While the change feed is live the
 * cache knows each product's latest version and answers without a query; otherwise, and for what
 * it lacks, the database says which versions are current.
 */
async function documentsOf(
  deps: ReadDeps,
  api: ApiVersion,
  websiteId: string,
  ids: string[],
): Promise<Map<string, ProductJson>> {
  const found = new Map<string, ProductJson>();
  const unknown: string[] = [];
  for (const id of ids) {
    const document = deps.documents.latest(api, id);
    if (document?.websiteId === websiteId) found.set(id, document.json);
    else unknown.push(id);
  }
  if (unknown.length === 0) return found;
  const heads = await repo.selectProductHeads(deps, websiteId, unknown, servedTypes(api));
  for (const [id, { json }] of await documentsAt(deps, api, websiteId, heads)) found.set(id, json);
  return found;
}

export async function getProduct(
  deps: ReadDeps,
  websiteId: string,
  id: string,
  api: ApiVersion = '1.1',
): Promise<ProductJson> {
  const [product] = await getProducts(deps, websiteId, [id], api);
  return product!;
}

/**
 * Products by id, in the order asked; any id missing (or of another website, or of a type the
 * version does not serve) is a 404.
 */
export async function getProducts(
  deps: ReadDeps,
  websiteId: string,
  ids: string[],
  api: ApiVersion = '1.1',
): Promise<ProductJson[]> {
  if (ids.length === 0 || ids.some((id) => id === ''))
    throw new ValidationError('productIds: one or more product ids, comma-separated');
  const unique = [...new Set(ids)];
  if (unique.length > MAX_IDS) throw new ValidationError(`productIds: at most ${MAX_IDS} ids a request`);
  const documents = await documentsOf(deps, api, websiteId, unique);
  // Also catches a product deleted between the two queries.
  const missing = unique.find((id) => !documents.has(id));
  if (missing !== undefined) {
    const type = await repo.productType(deps.db, websiteId, missing);
    throw type ? notShown(missing, type, api) : new NotFound(`product not found: ${missing}`);
  }
  return ids.map((id) => documents.get(id)!);
}

/**
 * The body of a read by id, `{"products":[...]}`, for the ids of the path (`productIdCsvs`, as
 * getProducts takes them). A single product that documentsOf would find in memory is answered
 * at once, with the body kept beside its document: no query, no copy, nothing to wait for. Any
 * other read takes getProducts' path and gives a promise.
 */
export function productsById(
  deps: ReadDeps,
  websiteId: string,
  productIdCsvs: string,
  api: ApiVersion = '1.1',
): Buffer | Promise<Buffer> {
  if (!productIdCsvs.includes(',')) {
    const document = deps.documents.latest(api, productIdCsvs.trim());
    if (document?.websiteId === websiteId) return document.alone;
  }
  const ids = productIdCsvs.split(',').map((id) => id.trim());
  return getProducts(deps, websiteId, ids, api).then((products) => documentList('products', products));
}

/**
 * A page of products ordered by (modifiedOn, id) ascending, with the cursor to the next page, as
 * the response body. Every change gets a modifiedOn greater than those already visible
 * (db/change-clock.ts), so a reader resuming from a position it has seen misses no change.
 */
export async function listProducts(
  deps: ReadDeps & { clock: Clock; cursors: CursorCodec; lists: ListCache },
  websiteId: string,
  query: ListProductsQueryT,
  pageUrl: string,
  api: ApiVersion = '1.1',
): Promise<Buffer> {
  const filter = parseListQuery(query, deps.cursors, websiteId, api);
  return settledPage(async (fresh) => {
    const read = () => repo.selectProductPage(deps, websiteId, filter, PAGE_SIZE + 1);
    const { rows, key } = await listPageHeads(deps, deps.lists, websiteId, filter, fresh, read);
    const bodyKey = key !== undefined && !query.cursor ? `${pageUrl} ${key}` : undefined;
    const cached = bodyKey !== undefined ? deps.lists.cachedBody(bodyKey) : undefined;
    if (cached) return { body: cached, complete: true };
    const page = rows.slice(0, PAGE_SIZE);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > PAGE_SIZE && last ? cursorAfter(deps.cursors, api, websiteId, filter, last) : null;
    const documents = await documentsAt(deps, api, websiteId, page);
    // Each product as of the position it was ordered by (settled-page.ts).
    const products = page.flatMap((head) => {
      const document = documents.get(head.id);
      return document?.version === head.version ? [document.json] : [];
    });
    const body = documentList(
      'products',
      products,
      `,"pagination":${JSON.stringify(pagination(nextCursor, pageUrl))}`,
    );
    // A deleted product is rightly absent, but the page is read again to be sure of it.
    const complete = products.length === page.length;
    // First pages are the ones clients poll; a cursor's page is read once, by one client.
    if (complete && bodyKey !== undefined) deps.lists.keepBody(bodyKey, body);
    return { body, complete };
  });
}
