import assert from 'node:assert/strict';
import { createProduct, physical } from './factories.ts';
import { assertError } from './shape.ts';
import { BASE_URL, type Site } from './test-app.ts';

/** Reading products through the 1.1 API (get by id, the list and its pages), for products.*.test.ts. */

export interface ProductBody {
  id: string;
  type: string;
  name: string;
  modifiedOn: string;
  createdOn: string;
}
export interface ListBody {
  products: ProductBody[];
  pagination: { hasNextPage: boolean; nextPageCursor: string | null; nextPageUrl: string | null };
}

export const LIST = '/1.1/commerce/products';
export const MISSING_ID = 'ffffffffffffffffffffffff';

export const get = (s: Site, ids: string, prefix = LIST) =>
  s.call({ method: 'GET', url: `${prefix}/${ids}` });
export const list = (s: Site, query = '', prefix = LIST) =>
  s.call({ method: 'GET', url: `${prefix}${query}` });
export const qs = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
export const ids = (products: { id: string }[]) => products.map((p) => p.id);
export const invalid = (
  res: Awaited<ReturnType<typeof list>>,
  message: RegExp,
  subtype = 'INVALID_ARGUMENT',
) => assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

/** The documented order of the list: modifiedOn, then id, ascending. */
export const byModifiedThenId = (a: ProductBody, b: ProductBody) =>
  a.modifiedOn < b.modifiedOn ? -1 : a.modifiedOn > b.modifiedOn ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Creates `count` products, a few at a time, each with a unique name; returns them in list order. */
export async function createMany(
  s: Site,
  count: number,
  make: (i: number) => Record<string, unknown> = (i) => physical(s, { name: `Item ${i}` }),
): Promise<ProductBody[]> {
  const created: ProductBody[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = Array.from({ length: Math.min(10, count - start) }, (_, k) =>
      createProduct(s, make(start + k)),
    );
    created.push(...(await Promise.all(batch)));
  }
  return created.sort(byModifiedThenId);
}

/** The path and query of an absolute nextPageUrl, checked to be under BASE_URL. */
export function pathOf(nextPageUrl: string | null): string {
  assert.ok(nextPageUrl, 'expected a nextPageUrl');
  assert.ok(nextPageUrl.startsWith(`${BASE_URL}/`), `nextPageUrl is not absolute: ${nextPageUrl}`);
  return nextPageUrl.slice(BASE_URL.length);
}

/** Follows nextPageUrl from the first page to the last; returns every page body. */
export async function allPages(s: Site, query = ''): Promise<ListBody[]> {
  const pages: ListBody[] = [];
  let res = await list(s, query);
  for (;;) {
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as ListBody;
    pages.push(body);
    if (!body.pagination.hasNextPage) return pages;
    assert.ok(pages.length < 20, 'pagination does not end');
    res = await s.call({ method: 'GET', url: pathOf(body.pagination.nextPageUrl) });
  }
}
