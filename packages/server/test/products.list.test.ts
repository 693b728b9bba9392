import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductList } from '../src/catalog/products.schemas.ts';
import { createProduct, digital, physical, variant } from './helpers/factories.ts';
import {
  allPages,
  byModifiedThenId,
  createMany,
  ids,
  invalid,
  list,
  LIST,
  pathOf,
  qs,
  type ListBody,
  type ProductBody,
} from './helpers/products.ts';
import { assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Products 1.1, the list: its shape, order and pages of 50, its cursors, and the modifiedAfter and
 * modifiedBefore window. Get by id, the type and query filters are in products.read.test.ts.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp();
  site = await ctx.site();
});
after(() => ctx.close());

describe('list products', () => {
  test('an empty store answers an empty list and a last-page pagination', async () => {
    const s = await ctx.site();
    const res = await list(s);
    assert.equal(res.statusCode, 200);
    assertShape(ProductList, res.json());
    assert.deepEqual(res.json(), {
      products: [],
      pagination: { hasNextPage: false, nextPageCursor: null, nextPageUrl: null },
    });
  });

  test('the response has exactly the documented ProductList shape', async () => {
    const s = await ctx.site();
    await createProduct(
      s,
      physical(s, {
        name: 'Shaped',
        tags: ['t'],
        seoOptions: { title: 'T' },
        variantAttributes: ['Size'],
        variants: [variant('SHAPE-1', { attributes: { Size: 'S' } })],
      }),
    );
    await createProduct(s, digital(s, { name: 'Shaped digital' }));
    const res = await list(s);
    assert.equal(res.statusCode, 200);
    assertShape(ProductList, res.json());
    assert.equal(res.json().products.length, 2);
  });

  test('pages hold 50 products ordered by modifiedOn then id; following cursors visits each once', async () => {
    const s = await ctx.site();
    const created = await createMany(s, 120);
    const pages = await allPages(s);
    assert.deepEqual(
      pages.map((p) => p.products.length),
      [50, 50, 20],
    );
    for (const page of pages.slice(0, -1)) {
      const cursor = page.pagination.nextPageCursor;
      assert.equal(page.pagination.hasNextPage, true);
      assert.ok(cursor);
      assert.equal(page.pagination.nextPageUrl, `${BASE_URL}${LIST}?cursor=${encodeURIComponent(cursor)}`);
    }
    assert.deepEqual(pages.at(-1)?.pagination, {
      hasNextPage: false,
      nextPageCursor: null,
      nextPageUrl: null,
    });
    const seen = pages.flatMap((p) => p.products);
    assert.deepEqual(ids(seen), ids(created));
    assert.deepEqual(ids([...seen].sort(byModifiedThenId)), ids(seen));
  });

  test('exactly 50 products fit one page; the 51st makes a second page', async () => {
    const s = await ctx.site();
    const fifty = await createMany(s, 50);
    const one = await list(s);
    assert.equal(one.json().products.length, 50);
    assert.deepEqual(one.json().pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
    const last = await createProduct(s, physical(s, { name: 'Fifty-first' }));
    const pages = await allPages(s);
    assert.deepEqual(
      pages.map((p) => ids(p.products)),
      [ids(fifty), [last.id]],
    );
  });

  test('products with the same modifiedOn are ordered by id and none is skipped across pages', async () => {
    const s = await ctx.site();
    await createMany(s, 55);
    const same = new Date('2026-06-01T00:00:00.000Z');
    await ctx.db
      .updateTable('products')
      .set({ modified_on: same })
      .where('website_id', '=', s.websiteId)
      .execute();
    const pages = await allPages(s);
    const seen = pages.flatMap((p) => p.products);
    assert.deepEqual(
      pages.map((p) => p.products.length),
      [50, 5],
    );
    assert.ok(seen.every((p) => p.modifiedOn === same.toISOString()));
    assert.deepEqual(ids(seen), ids(seen).sort());
    assert.equal(new Set(ids(seen)).size, 55);
  });

  test('a product updated after it was seen appears again on a later page; none is skipped', async () => {
    const s = await ctx.site();
    const created = await createMany(s, 120);
    const first = (await list(s)).json() as ListBody;
    assert.deepEqual(ids(first.products), ids(created.slice(0, 50)));

    const seenBefore = created[10]!;
    const notYetSeen = created[100]!;
    const update = (id: string, name: string) =>
      s.call({ method: 'POST', url: `${LIST}/${id}`, payload: { name } });
    assert.equal((await update(seenBefore.id, 'Renamed while paging')).statusCode, 200);
    assert.equal((await update(notYetSeen.id, 'Renamed before seen')).statusCode, 200);
    const added = await createProduct(s, physical(s, { name: 'Created while paging' }));

    const rest: ProductBody[] = [];
    let url = pathOf(first.pagination.nextPageUrl);
    for (let guard = 0; guard < 10; guard++) {
      const body = (await s.call({ method: 'GET', url })).json() as ListBody;
      rest.push(...body.products);
      if (!body.pagination.hasNextPage) break;
      url = pathOf(body.pagination.nextPageUrl);
    }
    const seen = [...first.products, ...rest];
    const count = (id: string) => seen.filter((p) => p.id === id).length;
    for (const product of created) {
      assert.equal(count(product.id), product.id === seenBefore.id ? 2 : 1, `${product.name} seen`);
    }
    assert.equal(count(added.id), 1);
    assert.equal(seen.length, 122);
    assert.equal(rest.filter((p) => p.id === seenBefore.id).at(-1)?.name, 'Renamed while paging');
    assert.equal(rest.find((p) => p.id === notYetSeen.id)?.name, 'Renamed before seen');
    assert.deepEqual(
      ids(rest.slice(-3)).sort(),
      [seenBefore.id, notYetSeen.id, added.id].sort(),
      'changed products move to the end',
    );
  });
});

describe('list cursors', () => {
  let s: Site;
  let created: ProductBody[];
  let cursor: string;
  before(async () => {
    s = await ctx.site();
    created = await createMany(s, 60);
    cursor = (await list(s)).json().pagination.nextPageCursor;
  });

  test('a cursor that is not one the API returned is a 400', async () => {
    for (const bad of ['garbage', 'a.b', 'a.b.c', '.', cursor.split('.')[0]!, `${cursor}x`]) {
      invalid(await list(s, qs({ cursor: bad })), /^cursor: /);
    }
  });

  test('a cursor with one character changed before the dot is a 400', async () => {
    const [body, signature] = cursor.split('.') as [string, string];
    for (const at of [0, Math.floor(body.length / 2), body.length - 1]) {
      const swapped = body[at] === 'A' ? 'B' : 'A';
      const tampered = `${body.slice(0, at)}${swapped}${body.slice(at + 1)}.${signature}`;
      invalid(await list(s, qs({ cursor: tampered })), /^cursor: /);
    }
  });

  test("another website's cursor is a 400", async () => {
    const other = await ctx.site();
    await createMany(other, 51);
    const foreign = (await list(other)).json().pagination.nextPageCursor;
    assert.ok(foreign);
    invalid(await list(s, qs({ cursor: foreign })), /^cursor: /);
  });

  test('a cursor combined with query, type or modifiedAfter/modifiedBefore is a 400', async () => {
    const window = { modifiedAfter: '2026-01-01T00:00:00.000Z', modifiedBefore: '2027-01-01T00:00:00.000Z' };
    const extras: Record<string, string>[] = [
      { query: 'item' },
      { type: 'PHYSICAL' },
      window,
      { modifiedAfter: window.modifiedAfter },
      { modifiedBefore: window.modifiedBefore },
    ];
    for (const extra of extras) {
      invalid(await list(s, qs({ cursor, ...extra })), /^cursor: /);
    }
  });

  test('an empty cursor= counts as absent, also next to filters', async () => {
    const res = await list(s, '?cursor=');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(ids(res.json().products), ids(created.slice(0, 50)));
    const window = { modifiedAfter: created[9]!.modifiedOn, modifiedBefore: created[12]!.modifiedOn };
    const filtered = await list(s, qs({ cursor: '', ...window }));
    assert.equal(filtered.statusCode, 200, filtered.body);
    assert.deepEqual(ids(filtered.json().products), ids(created.slice(10, 13)));
  });

  test('unknown query parameters (limit, id) are ignored, with or without a cursor', async () => {
    const res = await list(s, '?limit=5&id=x');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(ids(res.json().products), ids(created.slice(0, 50)));
    const next = await list(s, `?${new URLSearchParams({ cursor, limit: '5', id: 'x' })}`);
    assert.equal(next.statusCode, 200, next.body);
    assert.deepEqual(ids(next.json().products), ids(created.slice(50)));
  });
});

describe('modifiedAfter and modifiedBefore', () => {
  const window = (after: string, before: string) => qs({ modifiedAfter: after, modifiedBefore: before });
  const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

  test('one without the other is a 400 MISSING_ARGUMENT', async () => {
    invalid(
      await list(site, qs({ modifiedAfter: '2026-01-01T00:00:00.000Z' })),
      /^modifiedBefore: is required/,
      'MISSING_ARGUMENT',
    );
    invalid(
      await list(site, qs({ modifiedBefore: '2026-01-01T00:00:00.000Z' })),
      /^modifiedAfter: is required/,
      'MISSING_ARGUMENT',
    );
  });

  test('the window excludes modifiedAfter and includes modifiedBefore', async () => {
    const s = await ctx.site();
    const p1 = await createProduct(s, physical(s, { name: 'Window 1' }));
    ctx.clock.advance(1000);
    const p2 = await createProduct(s, physical(s, { name: 'Window 2' }));
    ctx.clock.advance(1000);
    const p3 = await createProduct(s, physical(s, { name: 'Window 3' }));

    const inWindow = async (after: string, before: string) => {
      const res = await list(s, window(after, before));
      assert.equal(res.statusCode, 200, res.body);
      return ids(res.json().products);
    };
    assert.deepEqual(await inWindow(p1.modifiedOn, p3.modifiedOn), [p2.id, p3.id]);
    assert.deepEqual(await inWindow(shift(p1.modifiedOn, -1), shift(p3.modifiedOn, -1)), [p1.id, p2.id]);
    assert.deepEqual(await inWindow(p1.modifiedOn, p2.modifiedOn), [p2.id]);
    assert.deepEqual(await inWindow(p2.modifiedOn, shift(p3.modifiedOn, -1)), []);
  });

  test('timestamps without milliseconds are accepted', async () => {
    const res = await list(site, window('2026-01-01T00:00:00Z', '2030-01-01T00:00:00Z'));
    assert.equal(res.statusCode, 200, res.body);
  });

  test('timestamps that are not UTC or not ISO 8601 are a 400', async () => {
    const good = '2026-01-01T00:00:00.000Z';
    for (const bad of [
      '2026-01-01T00:00:00.000+01:00',
      '2026-01-01T00:00:00.000+00:00',
      '2026-01-01T00:00:00.000',
      '2026-01-01',
      '2026-01-01 00:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      'yesterday',
      '1767225600000',
    ]) {
      invalid(await list(site, window(bad, '2030-01-01T00:00:00.000Z')), /^modifiedAfter: /);
      invalid(await list(site, window(good, bad)), /^modifiedBefore: /);
    }
  });

  test('impossible calendar dates are a 400, not rolled over to the next month', async () => {
    for (const bad of ['2026-02-30T00:00:00.000Z', '2026-04-31T00:00:00.000Z']) {
      invalid(await list(site, window(bad, '2030-01-01T00:00:00.000Z')), /^modifiedAfter: /);
      invalid(await list(site, window('2026-01-01T00:00:00.000Z', bad)), /^modifiedBefore: /);
    }
  });

  test('modifiedBefore equal to or earlier than modifiedAfter is a 400', async () => {
    const t = '2026-03-01T00:00:00.000Z';
    invalid(await list(site, window(t, t)), /^modifiedBefore: /);
    invalid(await list(site, window(t, shift(t, -1))), /^modifiedBefore: /);
  });

  test('the window, type and query carry over through the cursor to the next page', async () => {
    const s = await ctx.site();
    const earlier = await createProduct(s, physical(s, { name: 'Lamp early' }));
    ctx.clock.advance(1000);
    const wanted = await createMany(s, 55, (i) => physical(s, { name: `Lamp ${i}` }));
    await createMany(s, 6, (i) =>
      i % 2 ? digital(s, { name: `Lamp digital ${i}` }) : physical(s, { name: `Chair ${i}` }),
    );
    const last = await createProduct(s, physical(s, { name: 'Chair last' }));
    ctx.clock.advance(1000);
    await createProduct(s, physical(s, { name: 'Lamp late' }));

    const query = `${window(earlier.modifiedOn, last.modifiedOn)}&type=PHYSICAL&query=lamp`;
    const pages = await allPages(s, query);
    assert.deepEqual(
      pages.map((p) => p.products.length),
      [50, 5],
    );
    assert.deepEqual(ids(pages.flatMap((p) => p.products)), ids(wanted));
  });
});
