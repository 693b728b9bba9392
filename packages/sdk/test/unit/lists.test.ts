import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Emporium, NotFoundError } from '../../src/index.ts';
import { apiErrorBody, fakeFetch, json } from '../helpers/fake-fetch.ts';

const BASE = 'https://api.example.test';
const make = (fetch: Parameters<typeof fakeFetch>[0]) => {
  const fake = fakeFetch(fetch);
  const client = new Emporium({ userAgent: 'sdk-tests/1.0', baseUrl: BASE, apiKey: 'k', fetch: fake.fetch });
  return { client, calls: fake.calls };
};

/** Three pages of products p0..p119 (50, 50, 20), cursors c1 and c2. */
function pagedProducts(request: { url: URL }) {
  const cursor = request.url.searchParams.get('cursor');
  const page = cursor === null ? 0 : Number(cursor.slice(1));
  const count = page < 2 ? 50 : 20;
  const products = Array.from({ length: count }, (_, i) => ({ id: `p${page * 50 + i}` }));
  const next = page < 2 ? `c${page + 1}` : null;
  return json(200, {
    products,
    pagination: {
      hasNextPage: next !== null,
      nextPageCursor: next,
      nextPageUrl: next && `${BASE}/x?cursor=${next}`,
    },
  });
}

test('awaiting list() gives the first page with its items and pagination', async () => {
  const { client, calls } = make(pagedProducts);
  const page = await client.products.list({ query: 'linen', type: ['PHYSICAL', 'DIGITAL'] });
  assert.equal(page.products.length, 50);
  assert.equal(page.items, page.products);
  assert.deepEqual(page.pagination, {
    hasNextPage: true,
    nextPageCursor: 'c1',
    nextPageUrl: `${BASE}/x?cursor=c1`,
  });
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(page))), ['products', 'pagination']);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]!.url.searchParams.get('query'), 'linen');
  assert.equal(calls[0]!.url.searchParams.get('type'), 'PHYSICAL,DIGITAL');
});

test('for await over list() yields every item of every page, sending the cursor alone', async () => {
  const { client, calls } = make(pagedProducts);
  const ids: string[] = [];
  for await (const product of client.products.list({ query: 'linen' })) ids.push(product.id);
  assert.deepEqual(
    ids,
    Array.from({ length: 120 }, (_, i) => `p${i}`),
  );
  assert.deepEqual(
    calls.map((c) => c.url.search),
    ['?query=linen', '?cursor=c1', '?cursor=c2'],
  );
});

test('changedSince() asks for the changes after a modifiedOn, with an open end, and follows cursors', async () => {
  const { client, calls } = make(pagedProducts);
  assert.equal((await client.products.changedSince('2026-05-01T10:00:00.123Z').toArray()).length, 120);
  await client.products.changedSince(new Date('2026-05-02T00:00:00.000Z'));
  await client.products.changedSince();
  assert.deepEqual(
    calls.map((c) => c.url.search),
    [
      '?modifiedAfter=2026-05-01T10%3A00%3A00.123Z&modifiedBefore=9999-12-31T23%3A59%3A59.999Z',
      '?cursor=c1',
      '?cursor=c2',
      '?modifiedAfter=2026-05-02T00%3A00%3A00.000Z&modifiedBefore=9999-12-31T23%3A59%3A59.999Z',
      '?modifiedAfter=1970-01-01T00%3A00%3A00.000Z&modifiedBefore=9999-12-31T23%3A59%3A59.999Z',
    ],
  );
});

test('pages() yields each page; the first page is fetched once even when awaited and then iterated', async () => {
  const { client, calls } = make(pagedProducts);
  const list = client.products.list();
  const first = await list;
  const sizes: number[] = [];
  for await (const page of list.pages()) sizes.push(page.items.length);
  assert.deepEqual(sizes, [50, 50, 20]);
  assert.equal((await list).products, first.products);
  assert.equal(calls.length, 3);
  assert.equal((await client.products.list().toArray()).length, 120);
});

test('nothing is fetched until the list is awaited or iterated', async () => {
  const { client, calls } = make(pagedProducts);
  client.products.list();
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(calls.length, 0);
});

test('a failing page rejects the iteration', async () => {
  const { client } = make((request) =>
    request.url.searchParams.get('cursor') === 'c1'
      ? json(400, apiErrorBody('INVALID_REQUEST_ERROR'))
      : pagedProducts(request),
  );
  await assert.rejects(async () => {
    for await (const _ of client.products.list());
  }, /refused/);
});

test('store pages, inventory and webhook subscriptions are lists too', async () => {
  const { client, calls } = make((request) => {
    if (request.url.pathname.endsWith('store_pages')) {
      return json(200, {
        storePages: [{ id: 's1', title: 'Shop', isEnabled: true }],
        pagination: { hasNextPage: false, nextPageCursor: null, nextPageUrl: null },
      });
    }
    if (request.url.pathname.endsWith('inventory')) {
      const second = request.url.searchParams.get('cursor') === 'i1';
      return json(200, {
        inventory: [{ variantId: second ? 'v2' : 'v1' }],
        pagination: { hasNextPage: !second, nextPageCursor: second ? null : 'i1', nextPageUrl: null },
      });
    }
    return json(200, { webhookSubscriptions: [{ id: 'w1' }, { id: 'w2' }] });
  });
  assert.deepEqual(
    (await client.storePages.list()).items.map((s) => s.title),
    ['Shop'],
  );
  assert.deepEqual(
    (await client.inventory.list().toArray()).map((i) => i.variantId),
    ['v1', 'v2'],
  );
  const subscriptions = [];
  for await (const s of client.webhookSubscriptions.list()) subscriptions.push(s.id);
  assert.deepEqual(subscriptions, ['w1', 'w2']);
  assert.deepEqual(
    calls.map((c) => c.url.pathname + c.url.search),
    [
      '/1.0/commerce/store_pages',
      '/1.0/commerce/inventory',
      '/1.0/commerce/inventory?cursor=i1',
      '/1.0/webhook_subscriptions',
    ],
  );
});

/** Answers GET .../{ids} with the ids in the order asked, as the server does. */
const byIds = (key: 'products' | 'inventory', idKey: 'id' | 'variantId') => (request: { url: URL }) => {
  const ids = decodeURIComponent(request.url.pathname.split('/').pop()!).split(',');
  return json(200, { [key]: ids.map((id) => ({ [idKey]: id })) });
};

test('get with more than 50 ids: batches of 50, results in the order asked', async () => {
  const { client, calls } = make(byIds('products', 'id'));
  const ids = Array.from({ length: 120 }, (_, i) => `id${(i * 37) % 120}`);
  const products = await client.products.get(ids);
  assert.deepEqual(
    products.map((p) => p.id),
    ids,
  );
  assert.equal(calls.length, 3);
  const sizes = calls.map((c) => c.url.pathname.split('/').pop()!.split(',').length).sort((a, b) => b - a);
  assert.deepEqual(sizes, [50, 50, 20]);
  assert.ok(calls.every((c) => c.url.pathname.startsWith('/1.1/commerce/products/')));
});

test('get with one id resolves with that product; with [] sends nothing', async () => {
  const { client, calls } = make(byIds('products', 'id'));
  assert.deepEqual(await client.products.get('abc'), { id: 'abc' });
  assert.equal(calls[0]!.url.pathname, '/1.1/commerce/products/abc');
  assert.deepEqual(await client.products.get([]), []);
  assert.equal(calls.length, 1);
});

test('inventory.get batches too', async () => {
  const { client, calls } = make(byIds('inventory', 'variantId'));
  const ids = Array.from({ length: 51 }, (_, i) => `v${i}`);
  assert.deepEqual(
    (await client.inventory.get(ids)).map((i) => i.variantId),
    ids,
  );
  assert.equal(calls.length, 2);
  assert.deepEqual(await client.inventory.get('v9'), { variantId: 'v9' });
});

test('a batch that fails rejects the whole get', async () => {
  const { client } = make((request) =>
    request.url.pathname.includes('id60')
      ? json(404, apiErrorBody('INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT'))
      : byIds('products', 'id')(request),
  );
  await assert.rejects(client.products.get(Array.from({ length: 100 }, (_, i) => `id${i}`)), NotFoundError);
});
