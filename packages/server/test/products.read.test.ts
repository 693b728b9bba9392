import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductList, ProductsById } from '../src/catalog/products.schemas.ts';
import { createProduct, digital, physical, variant } from './helpers/factories.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp();
  site = await ctx.site();
});
after(() => ctx.close());

interface ProductBody {
  id: string;
  type: string;
  name: string;
  modifiedOn: string;
  createdOn: string;
}
interface ListBody {
  products: ProductBody[];
  pagination: { hasNextPage: boolean; nextPageCursor: string | null; nextPageUrl: string | null };
}

const LIST = '/1.1/commerce/products';
const MISSING_ID = 'ffffffffffffffffffffffff';

const get = (s: Site, ids: string, prefix = LIST) => s.call({ method: 'GET', url: `${prefix}/${ids}` });
const list = (s: Site, query = '', prefix = LIST) => s.call({ method: 'GET', url: `${prefix}${query}` });
const qs = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;
const ids = (products: { id: string }[]) => products.map((p) => p.id);
const invalid = (res: Awaited<ReturnType<typeof list>>, message: RegExp, subtype = 'INVALID_ARGUMENT') =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

/** The documented order of the list: modifiedOn, then id, ascending. */
const byModifiedThenId = (a: ProductBody, b: ProductBody) =>
  a.modifiedOn < b.modifiedOn ? -1 : a.modifiedOn > b.modifiedOn ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Creates `count` products, a few at a time, each with a unique name; returns them in list order. */
async function createMany(
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
function pathOf(nextPageUrl: string | null): string {
  assert.ok(nextPageUrl, 'expected a nextPageUrl');
  assert.ok(nextPageUrl.startsWith(`${BASE_URL}/`), `nextPageUrl is not absolute: ${nextPageUrl}`);
  return nextPageUrl.slice(BASE_URL.length);
}

/** Follows nextPageUrl from the first page to the last; returns every page body. */
async function allPages(s: Site, query = ''): Promise<ListBody[]> {
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

describe('get products by id', () => {
  test('one id answers 200 with that product in the documented shape', async () => {
    const product = await createProduct(site, physical(site, { name: 'Single' }));
    const res = await get(site, product.id);
    assert.equal(res.statusCode, 200);
    assertShape(ProductsById, res.json());
    assert.deepEqual(res.json(), { products: [product] });
  });

  test('one product read from memory is the very bytes of the general path, spaces around the id trimmed', async () => {
    const product = await createProduct(site, physical(site, { name: 'Bytes' }));
    const alone = await get(site, product.id); // the cached document, its body kept beside it
    const twice = await get(site, `${product.id},${product.id}`); // documentList over the documents
    assert.equal(alone.statusCode, 200);
    assert.equal(alone.headers['content-type'], 'application/json; charset=utf-8');
    const head = '{"products":[';
    const document = alone.body.slice(head.length, -2);
    assert.equal(alone.body, `${head}${document}]}`);
    assert.equal(twice.body, `${head}${document},${document}]}`);
    assert.equal((await get(site, `%20${product.id}%20`)).body, alone.body);
    assert.equal((await get(site, `%20`)).statusCode, 400);
  });

  test('a comma list answers the products in the order asked', async () => {
    const a = await createProduct(site, physical(site, { name: 'First' }));
    const b = await createProduct(site, digital(site, { name: 'Second' }));
    const c = await createProduct(site, physical(site, { name: 'Third' }));
    const res = await get(site, `${c.id},${a.id},${b.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().products, [c, a, b]);
  });

  test('a comma sent as %2C separates ids too', async () => {
    const a = await createProduct(site, physical(site, { name: 'Encoded A' }));
    const b = await createProduct(site, physical(site, { name: 'Encoded B' }));
    const res = await get(site, `${b.id}%2C${a.id}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(ids(res.json().products), [b.id, a.id]);
    const lower = await get(site, `${a.id}%2c${b.id}`);
    assert.equal(lower.statusCode, 200, lower.body);
    assert.deepEqual(ids(lower.json().products), [a.id, b.id]);
  });

  describe('at most 50 ids a request', () => {
    let fifty: string[];
    before(async () => {
      fifty = ids(await createMany(site, 50, (i) => physical(site, { name: `Fifty ${i}` })));
    });

    test('a list of 50 ids (1249 characters) is answered', async () => {
      const res = await get(site, fifty.join(','));
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      assert.deepEqual(ids(res.json().products), fifty);
    });

    test('a list of 51 ids is a 400', async () => {
      invalid(await get(site, [...fifty, MISSING_ID].join(',')), /at most 50/);
    });
  });

  test('any id not found is a 404, even with found ones', async () => {
    const product = await createProduct(site, physical(site, { name: 'Found' }));
    assertError(await get(site, MISSING_ID), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /not found/);
    assertError(
      await get(site, `${product.id},${MISSING_ID}`),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      new RegExp(MISSING_ID),
    );
  });

  test("another website's product is a 404, answered exactly as a missing id", async () => {
    const other = await ctx.site();
    const foreign = await createProduct(other, physical(other, { name: 'Foreign' }));
    const own = await createProduct(site, physical(site, { name: 'Own' }));
    const res = await get(site, foreign.id);
    assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    const missing = await get(site, MISSING_ID);
    const scrub = (r: typeof res, id: string) => {
      const { type, subtype, message, details } = r.json();
      return { type, subtype, message: String(message).replace(id, '<id>'), details };
    };
    assert.deepEqual(scrub(res, foreign.id), scrub(missing, MISSING_ID));
    assertError(await get(site, `${own.id},${foreign.id}`), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    assert.equal((await get(other, foreign.id)).statusCode, 200, 'the owner still reads it');
  });
});

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

describe('type filter', () => {
  let s: Site;
  let physicals: string[];
  let digitals: string[];
  before(async () => {
    s = await ctx.site();
    const made = [
      await createProduct(s, physical(s, { name: 'Type P1' })),
      await createProduct(s, digital(s, { name: 'Type D1' })),
      await createProduct(s, physical(s, { name: 'Type P2' })),
      await createProduct(s, digital(s, { name: 'Type D2' })),
    ];
    physicals = ids(made.filter((p) => p.type === 'PHYSICAL'));
    digitals = ids(made.filter((p) => p.type === 'DIGITAL'));
  });
  const typed = async (query: string) => {
    const res = await list(s, query);
    assert.equal(res.statusCode, 200, res.body);
    return ids(res.json().products);
  };

  test('PHYSICAL or DIGITAL lists only that type', async () => {
    assert.deepEqual(await typed('?type=PHYSICAL'), physicals);
    assert.deepEqual(await typed('?type=DIGITAL'), digitals);
  });

  test('both types as A,B, as A%2CB and as repeated type= list everything', async () => {
    const all = [physicals[0], digitals[0], physicals[1], digitals[1]];
    assert.deepEqual(await typed('?type=PHYSICAL,DIGITAL'), all);
    assert.deepEqual(await typed('?type=PHYSICAL%2CDIGITAL'), all);
    assert.deepEqual(await typed('?type=PHYSICAL&type=DIGITAL'), all);
  });

  test('an unknown type is a 400', async () => {
    invalid(await list(s, '?type=SERVICE'), /^type: /);
    invalid(await list(s, '?type=PHYSICAL,GIFT_CARD'), /^type: /);
    invalid(await list(s, '?type=DIGITAL&type=SERVICE'), /^type: /);
  });
});

describe('query search', () => {
  // Fixed SKUs (the factory's are random), so that no query matches a product by accident.
  let skus = 0;
  const item = (s: Site, overrides: Record<string, unknown>) =>
    physical(s, { variants: [variant(`QZ-${++skus}`)], ...overrides });
  const search = async (s: Site, query: string) => {
    const res = await list(s, qs({ query }));
    assert.equal(res.statusCode, 200, res.body);
    return ids(res.json().products);
  };

  test('matches name, description text, tags and variant SKUs, case-insensitively', async () => {
    const s = await ctx.site();
    const byName = await createProduct(s, item(s, { name: 'Walnut Cutting Board' }));
    const byDescription = await createProduct(
      s,
      item(s, { name: 'Plain', description: '<p>Carved from <b>WALNUT</b> wood</p>' }),
    );
    const byTag = await createProduct(s, digital(s, { name: 'Guide', tags: ['Walnut-Care'] }));
    const bySku = await createProduct(s, physical(s, { name: 'Other', variants: [variant('WALNUT-SKU-9')] }));
    await createProduct(s, item(s, { name: 'Oak Board', tags: ['oak'] }));
    assert.deepEqual(await search(s, 'walnut'), [byName.id, byDescription.id, byTag.id, bySku.id]);
    assert.deepEqual(await search(s, 'WaLnUt'), [byName.id, byDescription.id, byTag.id, bySku.id]);
    assert.deepEqual(await search(s, 'walnut-sku-9'), [bySku.id]);
    assert.deepEqual(await search(s, 'walnut-care'), [byTag.id]);
  });

  test('matches the description text, not the HTML tags and attributes around it', async () => {
    const s = await ctx.site();
    const product = await createProduct(
      s,
      item(s, {
        name: 'Markup',
        description:
          '<blockquote class="zebra"><a href="https://giraffe.example/path">Visible words</a></blockquote>',
      }),
    );
    assert.deepEqual(await search(s, 'visible'), [product.id]);
    assert.deepEqual(await search(s, 'zebra'), []);
    assert.deepEqual(await search(s, 'giraffe'), []);
    assert.deepEqual(await search(s, 'blockquote'), []);
  });

  test('does not match the names of HTML entities in the description', async () => {
    const s = await ctx.site();
    const product = await createProduct(s, item(s, { name: 'Grinder', description: '<p>Salt & pepper</p>' }));
    assert.deepEqual(await search(s, 'pepper'), [product.id]);
    assert.deepEqual(await search(s, 'amp'), []);
  });

  test('several words must all match, in any field and any order', async () => {
    const s = await ctx.site();
    const both = await createProduct(s, item(s, { name: 'Blue Mug' }));
    const split = await createProduct(s, item(s, { name: 'Mug', tags: ['blue'] }));
    await createProduct(s, item(s, { name: 'Blue Plate' }));
    await createProduct(s, item(s, { name: 'Red Mug' }));
    assert.deepEqual(await search(s, 'blue mug'), [both.id, split.id]);
    assert.deepEqual(await search(s, '  MUG   blue '), [both.id, split.id]);
  });

  test('% and _ in the query are literal characters, not wildcards', async () => {
    const s = await ctx.site();
    const percent = await createProduct(s, item(s, { name: '100% Cotton Tee' }));
    await createProduct(s, item(s, { name: '100 Cotton Tee' }));
    const underscore = await createProduct(s, item(s, { name: 'snake_case mug' }));
    await createProduct(s, item(s, { name: 'snakexcase mug' }));
    assert.deepEqual(await search(s, '100%'), [percent.id]);
    assert.deepEqual(await search(s, '%'), [percent.id]);
    assert.deepEqual(await search(s, 'snake_case'), [underscore.id]);
    assert.deepEqual(await search(s, '_'), [underscore.id]);
  });

  test('no match answers an empty list with a last-page pagination', async () => {
    const s = await ctx.site();
    await createProduct(s, item(s, { name: 'Something' }));
    const res = await list(s, qs({ query: 'nothing-like-this' }));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      products: [],
      pagination: { hasNextPage: false, nextPageCursor: null, nextPageUrl: null },
    });
  });
});

describe('the /1.0/commerce/products alias', () => {
  const V10 = '/1.0/commerce/products';

  test('creates a product as /1.1 does', async () => {
    const res = await site.call({
      method: 'POST',
      url: V10,
      payload: physical(site, { name: 'Old Client Mug' }),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().name, 'Old Client Mug');
    assert.deepEqual((await get(site, res.json().id)).json().products, [res.json()]);
  });

  test('gets products by id as /1.1 does', async () => {
    const a = await createProduct(site, physical(site, { name: 'Alias A' }));
    const b = await createProduct(site, digital(site, { name: 'Alias B' }));
    const old = await get(site, `${b.id},${a.id}`, V10);
    assert.equal(old.statusCode, 200);
    assert.deepEqual(old.json(), (await get(site, `${b.id},${a.id}`)).json());
    assertError(await get(site, MISSING_ID, V10), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
  });

  test('lists the same pages as /1.1, with next page URLs under /1.0', async () => {
    const s = await ctx.site();
    await createMany(s, 55);
    const old = await list(s, '', V10);
    const current = await list(s);
    assert.equal(old.statusCode, 200);
    assertShape(ProductList, old.json());
    assert.deepEqual(old.json().products, current.json().products);
    const cursor = old.json().pagination.nextPageCursor;
    assert.ok(cursor);
    assert.equal(old.json().pagination.nextPageUrl, `${BASE_URL}${V10}?cursor=${encodeURIComponent(cursor)}`);
    const next = await s.call({ method: 'GET', url: pathOf(old.json().pagination.nextPageUrl) });
    const nextCurrent = await s.call({ method: 'GET', url: pathOf(current.json().pagination.nextPageUrl) });
    assert.equal(next.statusCode, 200);
    assert.deepEqual(next.json(), nextCurrent.json());
    assert.equal(next.json().products.length, 5);
  });
});
