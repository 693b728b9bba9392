import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductList, ProductsById } from '../src/catalog/products.schemas.ts';
import { createProduct, digital, physical, variant } from './helpers/factories.ts';
import { createMany, get, ids, invalid, list, MISSING_ID, pathOf, qs } from './helpers/products.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Products 1.1: get by id, the type and query filters of the list, and the /1.0 alias. The list's
 * order, pages, cursors and modified window are in products.list.test.ts.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp();
  site = await ctx.site();
});
after(() => ctx.close());

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
