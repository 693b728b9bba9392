import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { InventoryById, InventoryPage } from '../src/catalog/inventory/inventory.schemas.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { createProduct, digital, physical, variant } from './helpers/factories.ts';
import {
  applied,
  INVENTORY,
  inventoryCalls,
  invalid,
  newKey,
  sku,
  withCredential,
  type Item,
} from './helpers/inventory.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** Inventory reads, the rules of an adjustment, its validation and scopes (api-details 7). */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const { stocked, adjust, items, stocks, product } = inventoryCalls(() => site);

describe('list the inventory', () => {
  test("lists the variants of the website's PHYSICAL products only, 50 a page, in a stable order, to the end", async () => {
    const own = await ctx.site();
    const a = await stocked(
      Array.from({ length: 30 }, (_, i) => i),
      own,
    );
    const b = await stocked(
      Array.from({ length: 30 }, () => 5),
      own,
    );
    const c = await stocked([7], own, {
      variantAttributes: [],
      variants: [variant(sku(), { stock: { quantity: 7, unlimited: false } })],
    });
    await createProduct(own, digital(own));
    await stocked([1, 2], site); // another website's
    const all = [...a.ids, ...b.ids, ...c.ids].sort();

    const first = await own.call({ method: 'GET', url: INVENTORY });
    assert.equal(first.statusCode, 200, first.body);
    const page1 = first.json();
    assertShape(InventoryPage, page1);
    assert.equal(page1.inventory.length, 50);
    assert.equal(page1.pagination.hasNextPage, true);
    const cursor = page1.pagination.nextPageCursor;
    assert.equal(
      page1.pagination.nextPageUrl,
      `${BASE_URL}${INVENTORY}?cursor=${encodeURIComponent(cursor)}`,
    );

    // A change of stock between the pages moves nothing: the order is by variant id.
    applied(await adjust({ incrementOperations: [{ variantId: all[0], quantity: 3 }] }, newKey(), own));
    const second = await own.call({ method: 'GET', url: INVENTORY, query: { cursor } });
    assert.equal(second.statusCode, 200, second.body);
    const page2 = second.json();
    assertShape(InventoryPage, page2);
    assert.deepEqual(page2.pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
    const seen = [...page1.inventory, ...page2.inventory].map((i: Item) => i.variantId);
    assert.deepEqual(seen, all, 'every variant once, in variant id order, no digital product, no other site');

    const again = (await own.call({ method: 'GET', url: `${INVENTORY}?cursor=` })).json();
    assert.deepEqual(
      again.inventory.map((i: Item) => i.variantId),
      all.slice(0, 50),
      'an empty cursor is the first page',
    );
    const quantity = (id: string) => [...page1.inventory, ...page2.inventory].find((i) => i.variantId === id);
    assert.equal(quantity(c.ids[0]!).quantity, 7);
  });

  test('a tampered cursor, or the cursor of another website, is a 400', async () => {
    const own = await ctx.site();
    await stocked(
      Array.from({ length: 51 }, () => 1),
      own,
    );
    const cursor = (await own.call({ method: 'GET', url: INVENTORY })).json().pagination.nextPageCursor;
    const [body, signature] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify({ k: 'inventory', w: own.websiteId, i: randomUUID() })).toString('base64url')}.${signature}`;
    for (const bad of [`${body}x.${signature}`, forged, 'nonsense']) {
      invalid(await own.call({ method: 'GET', url: INVENTORY, query: { cursor: bad } }), /^cursor: /);
    }
    invalid(await site.call({ method: 'GET', url: INVENTORY, query: { cursor } }), /^cursor: /);
  });

  test("the descriptor is the product name, then the variant's values in variantAttributes order", async () => {
    const tee = await createProduct(
      site,
      physical(site, {
        name: 'Tee',
        variantAttributes: ['Color', 'Size'],
        variants: [variant(sku(), { attributes: { Size: 'L', Color: 'Red' } })],
      }),
    );
    const mug = await createProduct(site, physical(site, { name: 'Mug' }));
    assert.deepEqual(
      (await items([tee.variants[0].id, mug.variants[0].id])).map((i) => i.descriptor),
      ['Tee [Red, L]', 'Mug'],
    );
    const res = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${tee.id}`,
      payload: { variantAttributes: ['Size', 'Color'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await items([tee.variants[0].id]))[0]!.descriptor, 'Tee [L, Red]');
  });
});

describe('get the inventory of variants by id', () => {
  test('answers in the order asked, with the documented shape, for a,b and a%2Cb', async () => {
    const { ids } = await stocked([3, 'unlimited', 0]);
    const reversed = [...ids].reverse();
    for (const url of [`${INVENTORY}/${reversed.join(',')}`, `${INVENTORY}/${reversed.join('%2C')}`]) {
      const res = await site.call({ method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assertShape(InventoryById, body);
      assert.deepEqual(Object.keys(body), ['inventory']);
      assert.deepEqual(
        body.inventory.map((i: Item) => i.variantId),
        reversed,
      );
      assert.deepEqual(
        body.inventory.map((i: Item) => [i.isUnlimited, i.quantity]),
        [
          [false, 0],
          [true, 0],
          [false, 3],
        ],
      );
    }
  });

  test('more than 50 ids is a 400', async () => {
    const ids = Array.from({ length: 51 }, () => randomUUID());
    invalid(await site.call({ method: 'GET', url: `${INVENTORY}/${ids.join(',')}` }), /at most 50 ids/);
  });

  test("an unknown id, another website's variant or a malformed id is a 404 naming it", async () => {
    const { ids } = await stocked([1]);
    const theirs = (await stocked([1], await ctx.site())).ids[0]!;
    for (const missing of [randomUUID(), theirs, 'not-a-uuid']) {
      assertError(
        await site.call({ method: 'GET', url: `${INVENTORY}/${ids[0]},${missing}` }),
        404,
        'INVALID_REQUEST_ERROR',
        'PRODUCT_VARIANT_NOT_FOUND',
        new RegExp(missing),
      );
    }
  });
});

describe('adjust the inventory', () => {
  test('increments, decrements and sets apply together: 204 with no body', async () => {
    const { ids } = await stocked([5, 5, 5, 'unlimited']);
    applied(
      await adjust({
        incrementOperations: [{ variantId: ids[0], quantity: 2 }],
        decrementOperations: [{ variantId: ids[1], quantity: 5 }],
        setFiniteOperations: [{ variantId: ids[2], quantity: 0 }],
        setUnlimitedOperations: [ids[3]],
      }),
    );
    assert.deepEqual(await stocks(ids), [7, 0, 0, 'unlimited']);
  });

  test('setFinite and setUnlimited move a variant between counted and unlimited stock', async () => {
    const { ids } = await stocked([4]);
    applied(await adjust({ setUnlimitedOperations: [ids[0]] }));
    assert.deepEqual(await items(ids).then((i) => [i[0]!.isUnlimited, i[0]!.quantity]), [true, 0]);
    applied(await adjust({ setUnlimitedOperations: [ids[0]] }));
    assert.deepEqual(await stocks(ids), ['unlimited']);
    applied(await adjust({ setFiniteOperations: [{ variantId: ids[0], quantity: 12 }] }));
    assert.deepEqual(await stocks(ids), [12]);
    applied(await adjust({ decrementOperations: [{ variantId: ids[0], quantity: 12 }] }));
    assert.deepEqual(await stocks(ids), [0]);
    applied(await adjust({ setFiniteOperations: [{ variantId: ids[0], quantity: 1_000_000_000 }] }));
    assert.deepEqual(await stocks(ids), [1_000_000_000]);
  });

  test('a decrement below zero is 409 INSUFFICIENT_STOCK naming the variant and its stock', async () => {
    const { ids } = await stocked([3, 10]);
    const res = await adjust({
      decrementOperations: [
        { variantId: ids[1], quantity: 1 },
        { variantId: ids[0], quantity: 4 },
      ],
    });
    assertError(
      res,
      409,
      'CONFLICT',
      'INSUFFICIENT_STOCK',
      new RegExp(`decrementOperations\\[1\\].*${ids[0]}.* 3 in stock`),
    );
    assert.deepEqual(await stocks(ids), [3, 10], 'nothing applied');
  });

  test('an increment or decrement of unlimited stock is 409 STOCK_NOT_TRACKED', async () => {
    const { ids } = await stocked(['unlimited']);
    for (const list of ['incrementOperations', 'decrementOperations']) {
      assertError(
        await adjust({ [list]: [{ variantId: ids[0], quantity: 1 }] }),
        409,
        'CONFLICT',
        'STOCK_NOT_TRACKED',
        new RegExp(`${list}\\[0\\].*${ids[0]}.*unlimited`),
      );
    }
    assert.deepEqual(await stocks(ids), ['unlimited']);
  });

  test("an unknown variant, another website's or a malformed id is 404 PRODUCT_VARIANT_NOT_FOUND; nothing applies", async () => {
    const { ids } = await stocked([5]);
    const other = await ctx.site();
    const theirs = (await stocked([5], other)).ids[0]!;
    for (const missing of [randomUUID(), theirs, 'nope']) {
      assertError(
        await adjust({
          incrementOperations: [{ variantId: ids[0], quantity: 1 }],
          setFiniteOperations: [{ variantId: missing, quantity: 1 }],
        }),
        404,
        'INVALID_REQUEST_ERROR',
        'PRODUCT_VARIANT_NOT_FOUND',
        new RegExp(`setFiniteOperations\\[0\\]\\.variantId: .*${missing}`),
      );
    }
    assert.deepEqual(await stocks(ids), [5]);
    assert.deepEqual(await stocks([theirs], other), [5]);
  });

  test('all or nothing: one refused operation among several, over several products, applies none', async () => {
    const p = await stocked([5, 5]);
    const q = await stocked([5, 'unlimited']);
    const body = {
      incrementOperations: [{ variantId: p.ids[0], quantity: 1 }],
      setFiniteOperations: [{ variantId: q.ids[0], quantity: 50 }],
      setUnlimitedOperations: [p.ids[1]],
      decrementOperations: [{ variantId: q.ids[1], quantity: 1 }],
    };
    assertError(await adjust(body), 409, 'CONFLICT', 'STOCK_NOT_TRACKED');
    assert.deepEqual(await stocks([...p.ids, ...q.ids]), [5, 5, 5, 'unlimited']);
    const beforeModified = (await product(p.product.id)).modifiedOn;
    assert.equal(beforeModified, p.product.modifiedOn, 'modifiedOn not moved either');
  });

  test('the modifiedOn of each product whose stock changed moves forward, and reads show the new stock', async () => {
    const p = await stocked([5]);
    const q = await stocked([5]);
    const untouched = await stocked([5]);
    // Read first, so the documents are cached: the adjustment must drop them.
    const before = await Promise.all([p, q, untouched].map((x) => product(x.product.id)));
    applied(
      await adjust({
        incrementOperations: [{ variantId: p.ids[0], quantity: 1 }],
        decrementOperations: [{ variantId: q.ids[0], quantity: 2 }],
        setFiniteOperations: [{ variantId: untouched.ids[0], quantity: 5 }], // the same stock: no change
      }),
    );
    const afterwards = await Promise.all([p, q, untouched].map((x) => product(x.product.id)));
    assert.ok(Date.parse(afterwards[0].modifiedOn) > Date.parse(before[0].modifiedOn));
    assert.ok(Date.parse(afterwards[1].modifiedOn) > Date.parse(before[1].modifiedOn));
    assert.equal(afterwards[2].modifiedOn, before[2].modifiedOn, 'a stock set to what it was is no change');
    assert.deepEqual(
      afterwards.map((x) => x.variants[0].stock),
      [
        { quantity: 6, unlimited: false },
        { quantity: 3, unlimited: false },
        { quantity: 5, unlimited: false },
      ],
    );
    // A sync client asking for the changes since its last read finds exactly the two.
    const since = before.map((x) => x.modifiedOn).sort()[2];
    const changed = await site.call({
      method: 'GET',
      url: '/1.1/commerce/products',
      query: { modifiedAfter: since, modifiedBefore: '2100-01-01T00:00:00.000Z' },
    });
    assert.deepEqual(
      changed
        .json()
        .products.map((x: { id: string }) => x.id)
        .sort(),
      [p.product.id, q.product.id].sort(),
    );
  });
});

describe('adjustment validation', () => {
  test('each broken rule is a 400 naming the field and the rule, and changes nothing', async () => {
    const { ids } = await stocked([5, 5]);
    const [a, b] = ids as [string, string];
    const op = (variantId: string, quantity: unknown) => ({ variantId, quantity });
    const many = (n: number) => Array.from({ length: n }, () => op(randomUUID(), 1));
    const cases: [unknown, RegExp, string?][] = [
      [{}, /^body: at least one operation/, 'MISSING_ARGUMENT'],
      [
        {
          incrementOperations: [],
          decrementOperations: [],
          setFiniteOperations: [],
          setUnlimitedOperations: [],
        },
        /^body: at least one operation/,
        'MISSING_ARGUMENT',
      ],
      [{ incrementOperations: many(51) }, /^incrementOperations: at most 50 items/],
      [
        { incrementOperations: many(26), setUnlimitedOperations: many(25).map((o) => o.variantId) },
        /^body: at most 50 operations/,
      ],
      [
        { incrementOperations: [op(a, 1), op(b, 1), op(a, 2)] },
        /^incrementOperations\[2\]\.variantId: .* also in incrementOperations\[0\]\.variantId/,
      ],
      [
        { decrementOperations: [op(a, 1)], setUnlimitedOperations: [b, a.toUpperCase()] },
        /^setUnlimitedOperations\[1\]: .* also in decrementOperations\[0\]\.variantId/,
      ],
      [
        { decrementOperations: [op(a, 1), op(b, 1), op(randomUUID(), 0)] },
        /^decrementOperations\[2\]\.quantity: at least 1$/,
      ],
      [{ incrementOperations: [op(a, 0)] }, /^incrementOperations\[0\]\.quantity: at least 1$/],
      [{ setFiniteOperations: [op(a, -1)] }, /^setFiniteOperations\[0\]\.quantity: at least 0$/],
      [
        { setFiniteOperations: [op(a, 1_000_000_001)] },
        /^setFiniteOperations\[0\]\.quantity: at most 1000000000$/,
      ],
      [{ incrementOperations: [op(a, 1.5)] }, /^incrementOperations\[0\]\.quantity: must be an integer$/],
      [{ incrementOperations: [op(a, '3')] }, /^incrementOperations\[0\]\.quantity: must be an integer$/],
      [
        { incrementOperations: [{ quantity: 1 }] },
        /^incrementOperations\[0\]\.variantId: is required$/,
        'MISSING_ARGUMENT',
      ],
      [
        { incrementOperations: [op(a, 999_999_996)] },
        /^incrementOperations\[0\]\.quantity: .* would be 1000000001, above the limit/,
      ],
      [{ setUnlimitedOperations: 'all' }, /^setUnlimitedOperations: must be an array$/],
    ];
    for (const [body, message, subtype] of cases) {
      invalid(await adjust(body), message, subtype);
    }
    assert.deepEqual(await stocks(ids), [5, 5]);
  });

  test('without Idempotency-Key: 400 with the RFC 7807 body the platform sends, before the body is read', async () => {
    const { ids } = await stocked([0]);
    const body = { incrementOperations: [{ variantId: ids[0], quantity: 1 }] };
    const missing = async (res: Awaited<ReturnType<typeof adjust>>) => {
      assert.equal(res.statusCode, 400, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(res.json(), {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: "Required header 'Idempotency-Key' is not present.",
        instance: `${INVENTORY}/adjustments`,
      });
    };
    await missing(await adjust(body, null));
    await missing(await adjust(body, ''));
    // Not even a broken body is looked at.
    await missing(
      await site.call({
        method: 'POST',
        url: `${INVENTORY}/adjustments?x=1`,
        headers: { 'content-type': 'application/json' },
        payload: '{"incrementOperations": [',
      }),
    );
    assert.deepEqual(await stocks(ids), [0]);
  });

  test('a credential without the scope is refused 403 before the missing Idempotency-Key is', async () => {
    const reader = await ctx.site({ scopes: ['website.inventory.read'] });
    const res = await adjust({ incrementOperations: [] }, null, reader);
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().subtype, 'MISSING_SCOPE');
  });

  test('Idempotency-Key: 1 to 64 letters, digits, - or _', async () => {
    const { ids } = await stocked([0]);
    const body = { incrementOperations: [{ variantId: ids[0], quantity: 1 }] };
    for (const bad of ['x'.repeat(65), 'two words', 'key!', 'clé', 'a.b', 'a/b']) {
      invalid(await adjust(body, bad), /^idempotency-key: /);
    }
    assert.deepEqual(await stocks(ids), [0]);
    for (const good of ['x'.repeat(64), 'A', '0_Z-9', randomUUID()]) applied(await adjust(body, good));
    assert.deepEqual(await stocks(ids), [4]);
  });
});

describe('scopes', () => {
  test('reading needs website.inventory.read, adjusting website.inventory (403 MISSING_SCOPE)', async () => {
    const { ids } = await stocked([5]);
    const key = async (scopes: string) => {
      const { apiKey } = await createApiKey(ctx, { websiteId: site.websiteId, scopes });
      return withCredential(ctx, site, apiKey).call;
    };
    const body = { incrementOperations: [{ variantId: ids[0], quantity: 1 }] };
    const post = { method: 'POST' as const, url: `${INVENTORY}/adjustments`, payload: body };
    const calls = (call: Site['call']) => [
      call({ method: 'GET', url: INVENTORY }),
      call({ method: 'GET', url: `${INVENTORY}/${ids[0]}` }),
      call({ ...post, headers: { 'idempotency-key': newKey() } }),
    ];

    const readOnly = await key('website.inventory.read');
    const [list, get, adjusted] = await Promise.all(calls(readOnly));
    assert.equal(list!.statusCode, 200);
    assert.equal(get!.statusCode, 200);
    assertError(adjusted!, 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE', /website\.inventory/);
    // The scope is checked before the body and the header: a read-only key learns nothing more.
    assertError(await readOnly({ ...post, payload: {} }), 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE');

    const products = await key('website.products');
    for (const res of await Promise.all(calls(products))) {
      assertError(res, 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE', /website\.inventory/);
    }

    const writer = await key('website.inventory');
    assert.deepEqual(
      (await Promise.all(calls(writer))).map((r) => r.statusCode),
      [200, 200, 204],
      'the write scope implies the read scope',
    );
    assert.deepEqual(await stocks(ids), [6]);
  });
});
