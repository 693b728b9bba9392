import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { applied, countBy, inventoryCalls, invalid, newKey, withCredential } from './helpers/inventory.ts';
import { grantTokens, registerApp } from './helpers/oauth.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** Inventory adjustments: their Idempotency-Key, and what many at once do (api-details 7). */

const HOUR = 3600_000;

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const { stocked, adjust, stocks, product } = inventoryCalls(() => site);

describe('idempotency', () => {
  test('a replay of a key with the same body answers 204 and applies nothing more', async () => {
    const { product: p, ids } = await stocked([10, 10]);
    const key = newKey();
    const body = {
      incrementOperations: [{ variantId: ids[0], quantity: 3 }],
      decrementOperations: [{ variantId: ids[1], quantity: 2 }],
    };
    applied(await adjust(body, key));
    const modified = (await product(p.id)).modifiedOn;
    applied(await adjust(body, key));
    // The same adjustment written otherwise: lists and fields in another order, upper-case ids.
    applied(
      await adjust(
        {
          decrementOperations: [{ quantity: 2, variantId: ids[1]!.toUpperCase() }],
          incrementOperations: [{ quantity: 3, variantId: ids[0] }],
          setFiniteOperations: [],
        },
        key,
      ),
    );
    assert.deepEqual(await stocks(ids), [13, 8]);
    assert.equal((await product(p.id)).modifiedOn, modified, 'a replay changes nothing');
  });

  test('the same key with another body is a 400 that changes nothing', async () => {
    const { ids } = await stocked([10]);
    const key = newKey();
    applied(await adjust({ incrementOperations: [{ variantId: ids[0], quantity: 1 }] }, key));
    invalid(
      await adjust({ incrementOperations: [{ variantId: ids[0], quantity: 2 }] }, key),
      /^Idempotency-Key: .*another body/,
    );
    assert.deepEqual(await stocks(ids), [11]);
  });

  test('a refused adjustment keeps no key: corrected and sent again with the same key, it applies', async () => {
    const { ids } = await stocked([1]);
    const key = newKey();
    assertError(
      await adjust({ decrementOperations: [{ variantId: ids[0], quantity: 2 }] }, key),
      409,
      'CONFLICT',
      'INSUFFICIENT_STOCK',
    );
    assertError(
      await adjust({ decrementOperations: [{ variantId: randomUUID(), quantity: 1 }] }, key),
      404,
      'INVALID_REQUEST_ERROR',
      'PRODUCT_VARIANT_NOT_FOUND',
    );
    invalid(await adjust({ decrementOperations: [{ variantId: ids[0], quantity: 0 }] }, key), /at least 1/);
    applied(await adjust({ decrementOperations: [{ variantId: ids[0], quantity: 1 }] }, key));
    assert.deepEqual(await stocks(ids), [0]);
  });

  test('a key belongs to its API key: another key of the same site, or another site, uses it independently', async () => {
    const { ids } = await stocked([0]);
    const { apiKey } = await createApiKey(ctx, { websiteId: site.websiteId, scopes: 'website.inventory' });
    const key = newKey();
    const body = { incrementOperations: [{ variantId: ids[0], quantity: 1 }] };
    applied(await adjust(body, key));
    applied(await adjust(body, key, withCredential(ctx, site, apiKey)));
    assert.deepEqual(await stocks(ids), [2]);

    const other = await ctx.site();
    const theirs = await stocked([0], other);
    applied(await adjust({ incrementOperations: [{ variantId: theirs.ids[0], quantity: 1 }] }, key, other));
    assert.deepEqual(await stocks(theirs.ids, other), [1]);
  });

  test("an OAuth app's key is shared by all its tokens, and apart from the site's API keys", async () => {
    const { ids } = await stocked([0]);
    const app = await registerApp(ctx);
    const tokens = await Promise.all(
      [1, 2].map(async () => grantTokens(ctx, app, site.websiteId, { scopes: ['website.inventory'] })),
    );
    const key = newKey();
    const body = { incrementOperations: [{ variantId: ids[0], quantity: 1 }] };
    for (const token of tokens) {
      applied(await adjust(body, key, withCredential(ctx, site, token.access_token)));
    }
    assert.deepEqual(await stocks(ids), [1], 'the second token replayed the first');
    applied(await adjust(body, key));
    assert.deepEqual(await stocks(ids), [2], 'the API key is another caller');
  });

  test('a key is kept 48 hours: a replay within them answers 204 without applying; after, the key is new', async () => {
    const { ids } = await stocked([0]);
    const key = newKey();
    const body = { incrementOperations: [{ variantId: ids[0], quantity: 1 }] };
    applied(await adjust(body, key));
    ctx.clock.advance(48 * HOUR - 10);
    applied(await adjust(body, key));
    invalid(await adjust({ incrementOperations: [{ variantId: ids[0], quantity: 5 }] }, key), /another body/);
    assert.deepEqual(await stocks(ids), [1]);
    ctx.clock.advance(10);
    // Expired, even before the hourly sweep has deleted it: the key applies again, with any body.
    applied(await adjust({ incrementOperations: [{ variantId: ids[0], quantity: 5 }] }, key));
    applied(await adjust({ incrementOperations: [{ variantId: ids[0], quantity: 5 }] }, key));
    assert.deepEqual(await stocks(ids), [6]);
  });
});

describe('concurrency', () => {
  test('50 parallel decrements of 1 on a stock of 10: ten 204s, forty 409 INSUFFICIENT_STOCK, 0 left', async () => {
    const { ids } = await stocked([10]);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => adjust({ decrementOperations: [{ variantId: ids[0], quantity: 1 }] })),
    );
    const byStatus = countBy(results.map((r) => r.statusCode));
    assert.deepEqual(byStatus, { 204: 10, 409: 40 });
    for (const r of results.filter((r) => r.statusCode === 409)) {
      assertError(r, 409, 'CONFLICT', 'INSUFFICIENT_STOCK', /has 0 in stock/);
    }
    assert.deepEqual(await stocks(ids), [0]);
  });

  test('while a request with the key is still running, another with it is 409 CONCURRENT_MODIFICATION', async () => {
    const own = await ctx.site();
    const { ids } = await stocked([0], own);
    const apiKey = await ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('website_id', '=', own.websiteId)
      .executeTakeFirstOrThrow();
    const key = newKey();
    const body = { incrementOperations: [{ variantId: ids[0], quantity: 1 }] };
    // The first request, mid-transaction, holds its key's advisory lock (inventory.service.ts).
    await ctx.db.transaction().execute(async (trx) => {
      const name = `${own.websiteId}:key:${apiKey.id}:${key}`;
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(trx);
      assertError(await adjust(body, key, own), 409, 'CONFLICT', 'CONCURRENT_MODIFICATION', /still running/);
      applied(await adjust(body, newKey(), own));
    });
    assert.deepEqual(await stocks(ids, own), [1], 'the refused request applied nothing and kept no key');
    applied(await adjust(body, key, own));
    assert.deepEqual(await stocks(ids, own), [2]);
  });

  test('20 parallel requests with the same key and body apply once; the others replay or are told it is running', async () => {
    const { ids } = await stocked([0, 0]);
    const key = newKey();
    const body = {
      incrementOperations: [{ variantId: ids[0], quantity: 1 }],
      setFiniteOperations: [{ variantId: ids[1], quantity: 7 }],
    };
    const results = await Promise.all(Array.from({ length: 20 }, () => adjust(body, key)));
    for (const r of results) {
      if (r.statusCode === 409) assertError(r, 409, 'CONFLICT', 'CONCURRENT_MODIFICATION', /still running/);
      else applied(r);
    }
    assert.ok(results.some((r) => r.statusCode === 204));
    assert.deepEqual(await stocks(ids), [1, 7]);
    applied(await adjust(body, key));
    assert.deepEqual(await stocks(ids), [1, 7], 'and a replay afterwards is a replay');
  });

  test('parallel adjustments over the same products, listed in any order, neither deadlock nor lose an update', async () => {
    const p = await stocked([100, 100]);
    const q = await stocked([100, 100]);
    const all = [...p.ids, ...q.ids];
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const order = i % 2 ? [...all].reverse() : all;
        return adjust({
          incrementOperations: order.slice(0, 2).map((variantId) => ({ variantId, quantity: 2 })),
          decrementOperations: order.slice(2).map((variantId) => ({ variantId, quantity: 1 })),
        });
      }),
    );
    assert.deepEqual(countBy(results.map((r) => r.statusCode)), { 204: 24 });
    // Even requests raise p and lower q; odd ones the reverse: 12 times each way.
    assert.deepEqual(await stocks(all), [112, 112, 112, 112]);
  });
});
