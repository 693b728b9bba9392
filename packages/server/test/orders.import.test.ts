import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { countKeyImportsQuery } from '../src/orders/orders.repo.ts';
import { Order } from '../src/orders/orders.schemas.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { inventoryCalls, sku, withCredential } from './helpers/inventory.ts';
import { created, customLine, importBody, importOrder, line, orderKey, ORDERS } from './helpers/orders.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/**
 * Orders 1.0 (platform-surface 2.1): importing an order, the stock it takes, and who may import
 * how many. Listing and fulfilling are in orders.list-fulfill.test.ts.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const { stocked, stocks } = inventoryCalls(() => site);

async function orderCount(websiteId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('website_id', '=', websiteId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('import an order', () => {
  test('answers 201 with the bare order as the platform shows an import, numbered in sequence', async () => {
    const own = await ctx.site();
    const { product, ids } = await stocked([5, 5], own);
    const body = importBody([line(ids[0]!, 2, '12.50'), customLine('Engraving', 1, '3.00')], {
      customerEmail: 'Buyer@Example.com',
      shippingAddress: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        address1: '1 Main St',
        city: 'Dallas',
        state: 'TX',
        countryCode: 'US',
        postalCode: '75201',
        phone: '555',
      },
      shippingLines: [{ method: 'USPS Ground', amount: { currency: 'USD', value: 4 } }],
      shippingTotal: { currency: 'USD', value: '4.00' },
      grandTotal: { currency: 'USD', value: '32.00' },
    });
    const key = orderKey();
    const order = await created(own, body, key);
    assertShape(Order, order);
    assert.equal(order.orderNumber, '1');
    assert.equal(order.channel, 'external');
    assert.equal(order.channelName, 'Etsy');
    assert.equal(order.externalOrderReference, body.externalOrderReference);
    assert.equal(order.createdOn, '2026-08-16T08:14:10Z', 'the import time is echoed verbatim');
    assert.match(order.modifiedOn, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(order.testmode, false);
    assert.equal(order.paymentState, 'PAID');
    assert.equal(order.fulfillmentStatus, 'PENDING');
    assert.equal(order.fulfilledOn, null);
    assert.equal(order.idempotencyKey, key, 'the create response echoes the key');
    assert.equal(order.billingAddress, null);
    assert.equal(order.shippingAddress.address2, null, 'empty address fields are null');
    assert.deepEqual(order.internalNotes, []);
    assert.deepEqual(order.discountLines, []);
    assert.equal(order.formSubmission, null);
    assert.deepEqual(order.shippingLines, [
      { method: 'USPS Ground', amount: { currency: 'USD', value: '4.00' } },
    ]);
    assert.deepEqual(order.subtotal, { currency: 'USD', value: '28.00' });
    assert.deepEqual(order.taxTotal, { currency: 'USD', value: '0.00' }, 'an omitted total is 0.00');
    assert.deepEqual(order.refundedTotal, { currency: 'USD', value: '0.00' });
    assert.deepEqual(order.grandTotal, { currency: 'USD', value: '32.00' });
    assert.deepEqual(
      Object.keys(order),
      [...Object.keys(Order.properties), 'idempotencyKey'],
      'every field, in the order of the platform',
    );

    const [physicalLine, custom] = order.lineItems;
    assert.match(physicalLine.id, /^[0-9a-f]{24}$/);
    assert.equal(physicalLine.variantId, ids[0]);
    assert.equal(physicalLine.productId, product.id);
    assert.equal(physicalLine.productName, product.name);
    assert.equal(physicalLine.sku, product.variants[0].sku);
    assert.deepEqual(physicalLine.variantOptions, [{ optionName: 'N', value: '0' }]);
    assert.equal(physicalLine.quantity, 2);
    assert.deepEqual(physicalLine.unitPricePaid, { currency: 'USD', value: '12.50' });
    assert.equal(physicalLine.lineItemType, 'PHYSICAL_PRODUCT');
    assert.equal(custom.productName, 'Engraving');
    assert.equal(custom.variantId, null);
    assert.equal(custom.lineItemType, 'CUSTOM');

    const profile = await own.call({ method: 'GET', url: `/1.0/profiles/${order.customerId}` });
    assert.equal(profile.statusCode, 200, profile.body);
    assert.equal(
      profile.json().profiles[0].email.toLowerCase(),
      'buyer@example.com',
      'customerId is the profile',
    );

    const second = await created(own, importBody([customLine('Gift card')]));
    assert.equal(second.orderNumber, '2');
    assert.deepEqual(await stocks(ids, own), [5, 5], 'inventoryBehavior defaults to SKIP');

    const read = await own.call({ method: 'GET', url: `${ORDERS}/${order.id}` });
    assert.equal(read.statusCode, 200);
    const { idempotencyKey: _, ...bare } = order;
    assert.deepEqual(read.json(), bare, 'GET answers the bare order, without the key');
  });

  test('without an Idempotency-Key: 400 with the RFC 7807 body, nothing created', async () => {
    const own = await ctx.site();
    const res = await importOrder(own, importBody([customLine('X')]), null);
    assert.equal(res.statusCode, 400);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(res.json(), {
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: "Required header 'Idempotency-Key' is not present.",
      instance: ORDERS,
    });
    assert.equal(await orderCount(own.websiteId), 0);
  });

  test('the same key and body answer with the same order, created once, even sent at once', async () => {
    const own = await ctx.site();
    const body = importBody([customLine('Poster')]);
    const key = orderKey();
    const answers = await Promise.all(Array.from({ length: 6 }, () => importOrder(own, body, key)));
    const ok = answers.filter((a) => a.statusCode === 201);
    for (const a of answers) {
      if (a.statusCode !== 201) assertError(a, 409, 'CONFLICT', 'CONCURRENT_MODIFICATION');
    }
    assert.ok(ok.length >= 1);
    assert.equal(new Set(ok.map((a) => a.json().id)).size, 1, 'every 201 is the same order');
    const replay = await importOrder(own, body, key);
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.json().id, ok[0]!.json().id);
    assert.equal(await orderCount(own.websiteId), 1);

    const other = await importOrder(own, importBody([customLine('Another')]), key);
    assertError(other, 400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    assert.match(other.json().message, /another body/);
    assert.equal(await orderCount(own.websiteId), 1);
  });

  test('every rule of the body is a 400 naming it, and nothing is stored', async () => {
    const own = await ctx.site();
    const { ids } = await stocked([3], own);
    const ok = () => importBody([line(ids[0]!)]);
    const long = (n: number) => 'x'.repeat(n);
    const shipment = {
      shipDate: '2026-08-16T08:14:10Z',
      carrierName: 'UPS',
      service: 'Ground',
      trackingNumber: '1Z',
    };
    const cases: [string, object, RegExp][] = [
      [
        'subtotal not the sum of the lines',
        { ...ok(), subtotal: { currency: 'USD', value: '9.99' } },
        /^The sum of lineItems\.unitPricePaid\.value must equal subtotal\.value$/,
      ],
      ['subtotal omitted', (({ subtotal: _, ...rest }) => rest)(ok()), /must equal subtotal\.value/],
      [
        'a title on a physical line',
        importBody([{ ...line(ids[0]!), title: 'Mug' }]),
        /^lineItems\.title must be null or omitted\.$/,
      ],
      [
        'a custom line without a title',
        importBody([{ ...customLine('x'), title: '' }]),
        /lineItems\[0\]\.title/,
      ],
      [
        'a physical line without a variant',
        importBody([{ ...line(ids[0]!), variantId: '' }]),
        /lineItems\[0\]\.variantId/,
      ],
      [
        'an unknown variant',
        importBody([line('00000000-0000-4000-8000-000000000000')]),
        /lineItems\[0\]\.variantId: no variant/,
      ],
      [
        'another currency',
        importBody([line(ids[0]!)], { grandTotal: { currency: 'EUR', value: '10.00' } }),
        /grandTotal\.currency/,
      ],
      [
        'too many decimals',
        importBody([line(ids[0]!)], { grandTotal: { currency: 'USD', value: '10.001' } }),
        /grandTotal\.value/,
      ],
      ['createdOn not ISO 8601 UTC', { ...ok(), createdOn: '16/08/2026' }, /createdOn/],
      ['channelName over 30', { ...ok(), channelName: long(31) }, /channelName/],
      [
        'externalOrderReference over 200',
        { ...ok(), externalOrderReference: long(201) },
        /externalOrderReference/,
      ],
      ['fulfillments missing', (({ fulfillments: _, ...rest }) => rest)(ok()), /fulfillments/],
      [
        'over 100 fulfillments',
        { ...ok(), fulfillments: Array.from({ length: 101 }, () => shipment) },
        /fulfillments/,
      ],
      [
        'a shipment with a bad tracking URL',
        { ...ok(), fulfillments: [{ ...shipment, trackingUrl: 'not a url' }] },
        /fulfillments\[0\]\.trackingUrl/,
      ],
      [
        'two shipping lines',
        {
          ...ok(),
          shippingLines: [
            { method: 'a', amount: { currency: 'USD', value: '1.00' } },
            { method: 'b', amount: { currency: 'USD', value: '1.00' } },
          ],
        },
        /shippingLines/,
      ],
      ['FULFILLED without fulfilledOn', { ...ok(), fulfillmentStatus: 'FULFILLED' }, /fulfilledOn/],
      ['no lines', { ...ok(), lineItems: [] }, /lineItems/],
      ['a quantity over 1,000,000', importBody([line(ids[0]!, 1_000_001)]), /quantity/],
      ['a bad e-mail', { ...ok(), customerEmail: 'nobody' }, /customerEmail/],
    ];
    for (const [what, body, message] of cases) {
      const res = await importOrder(own, body);
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      assert.equal(res.json().type, 'INVALID_REQUEST_ERROR', what);
      assert.match(res.json().message, message, what);
    }
    assert.equal(await orderCount(own.websiteId), 0);
    assert.deepEqual(await stocks(ids, own), [3]);
    assert.equal((await created(own, ok())).orderNumber, '1', 'refused orders used no number');
  });

  test("another website's variant is not found, and its orders are 404", async () => {
    const own = await ctx.site();
    const { ids } = await stocked([3], site);
    const res = await importOrder(own, importBody([line(ids[0]!)]));
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /no variant/);
    const theirs = await created(site, importBody([customLine('X')]));
    const notFound = await own.call({ method: 'GET', url: `${ORDERS}/${theirs.id}` });
    assertError(notFound, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    const malformed = await own.call({ method: 'GET', url: `${ORDERS}/not-an-id` });
    assertError(
      malformed,
      400,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      /id is not in the expected format/,
    );
    const fulfill = await own.call({
      method: 'POST',
      url: `${ORDERS}/${theirs.id}/fulfillments`,
      payload: {},
    });
    assertError(fulfill, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    const list = (await own.call({ method: 'GET', url: ORDERS })).json();
    assert.ok(!list.result.some((o: { id: string }) => o.id === theirs.id));
  });
});

describe('stock', () => {
  test('DEDUCT takes every line from stock; a short variant refuses the whole order with a 409 naming it', async () => {
    const own = await ctx.site();
    const { ids } = await stocked([5, 2, 'unlimited'], own);
    const deduct = { inventoryBehavior: 'DEDUCT' };
    await created(own, importBody([line(ids[0]!, 2), line(ids[0]!, 1), line(ids[2]!, 40)], deduct));
    assert.deepEqual(await stocks(ids, own), [2, 2, 'unlimited'], 'two lines of one variant add up');

    const res = await importOrder(own, importBody([line(ids[0]!, 1), line(ids[1]!, 3)], deduct));
    assertError(res, 409, 'CONFLICT', 'INSUFFICIENT_STOCK');
    assert.match(
      res.json().message,
      new RegExp(`lineItems\\[1\\]\\.variantId: variant ${ids[1]} \\(SKU .+\\) has 2 in stock, 3 ordered`),
    );
    assert.deepEqual(await stocks(ids, own), [2, 2, 'unlimited'], 'nothing taken');
    assert.equal(await orderCount(own.websiteId), 1);
  });

  test('parallel orders for the last items sell exactly the stock', async () => {
    const own = await ctx.site();
    const { ids } = await stocked([7], own);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        importOrder(own, importBody([line(ids[0]!)], { inventoryBehavior: 'DEDUCT' })),
      ),
    );
    const codes = answers.map((a) => a.statusCode).sort();
    assert.equal(codes.filter((c) => c === 201).length, 7, codes.join(','));
    for (const a of answers) if (a.statusCode !== 201) assertError(a, 409, 'CONFLICT', 'INSUFFICIENT_STOCK');
    assert.deepEqual(await stocks(ids, own), [0]);
    assert.equal(await orderCount(own.websiteId), 7);
    const numbers = answers.filter((a) => a.statusCode === 201).map((a) => Number(a.json().orderNumber));
    assert.deepEqual(
      numbers.sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7],
      'numbers without gaps',
    );
  });

  test("a stock change shows in the product's modifiedOn and inventory as any other", async () => {
    const own = await ctx.site();
    const product = await createProduct(
      own,
      physical(own, { variants: [variant(sku(), { stock: { quantity: 4, unlimited: false } })] }),
    );
    const before = product.modifiedOn;
    await created(own, importBody([line(product.variants[0].id, 3)], { inventoryBehavior: 'DEDUCT' }));
    const after = (await own.call({ method: 'GET', url: `/1.1/commerce/products/${product.id}` })).json()
      .products[0];
    assert.equal(after.variants[0].stock.quantity, 1);
    assert.ok(after.modifiedOn > before);
  });
});

describe('scopes and limits', () => {
  test('reads need website.orders.read, writes website.orders, for API keys and tokens alike', async () => {
    const own = await ctx.site();
    const order = await created(own, importBody([customLine('A')]));
    const { apiKey } = await createApiKey(ctx.api, {
      websiteId: own.websiteId,
      scopes: 'website.orders.read',
    });
    const reader = withCredential(ctx, own, apiKey);
    assert.equal((await reader.call({ method: 'GET', url: ORDERS })).statusCode, 200);
    assert.equal((await reader.call({ method: 'GET', url: `${ORDERS}/${order.id}` })).statusCode, 200);
    assertError(
      await importOrder(reader, importBody([customLine('B')])),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
    );
    assertError(
      await reader.call({ method: 'POST', url: `${ORDERS}/${order.id}/fulfillments`, payload: {} }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
    );
    const products = await connectApp(ctx, ['website.products']);
    assertError(await products.call('GET', ORDERS), 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE');
  });

  test('API keys import at most the hourly limit a website; OAuth apps are not counted', async () => {
    const limited = await testApp({ logLevel: 'silent', orderImportsPerHour: 2 });
    try {
      const shop = await connectApp(limited, ['website.orders']);
      const own = shop.site;
      for (let i = 0; i < 2; i++)
        assert.equal((await importOrder(own, importBody([customLine('A')]))).statusCode, 201);
      const refused = await importOrder(own, importBody([customLine('A')]));
      assertError(refused, 429, 'TOO_MANY_REQUESTS', null);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      const viaApp = await limited.app.inject({
        method: 'POST',
        url: ORDERS,
        headers: {
          authorization: `Bearer ${shop.accessToken}`,
          'user-agent': 'tests',
          'idempotency-key': orderKey(),
        },
        payload: importBody([customLine('A')]),
      });
      assert.equal(viaApp.statusCode, 201, viaApp.body);
      limited.clock.advance(3600_000);
      assert.equal((await importOrder(own, importBody([customLine('A')]))).statusCode, 201, 'an hour later');
    } finally {
      await limited.close();
    }
  });

  test("the hourly count reads an index of the API keys' imports alone, also as a prepared statement", async () => {
    // Counted while the website's order number is held: never through every key it kept for 48
    // hours. A transaction prepares its statements, whose plan may be the generic one.
    const { sql: text } = countKeyImportsQuery(ctx.db, 'w', new Date(0), 101).compile();
    const plan = await ctx.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL plan_cache_mode = force_generic_plan`.execute(trx);
      await sql`SET LOCAL enable_seqscan = off`.execute(trx); // a test's table is small
      await sql.raw(`PREPARE key_imports_count AS ${text}`).execute(trx);
      const { rows } = await sql
        .raw<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE key_imports_count('w', now(), 101)`)
        .execute(trx);
      await sql`DEALLOCATE key_imports_count`.execute(trx);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /order_import_keys_by_api_key_idx/);
  });
});
