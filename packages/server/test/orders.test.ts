import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Order, OrdersPage } from '../src/commerce/orders.schemas.ts';
import { listOrders } from '../src/commerce/orders.read.ts';
import { createOrder } from '../src/commerce/orders.service.ts';
import { createApiKey } from '../src/owner/api-keys.service.ts';
import { changingAfter } from './helpers/between-queries.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { inventoryCalls, sku, withCredential } from './helpers/inventory.ts';
import {
  customLine,
  importBody,
  importOrder,
  line,
  nativeDraft,
  orderKey,
  ORDERS,
} from './helpers/orders.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/** Orders 1.0 (platform-surface 2.1): import, read, list, fulfill, stock and webhooks. */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const { stocked, stocks } = inventoryCalls(() => site);

async function created(s: Site, body: object, key = orderKey()) {
  const res = await importOrder(s, body, key);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

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

describe('list orders', () => {
  test('newest change first, 50 a page, with cursors to the end; a fulfillment moves an order to the front', async () => {
    const own = await ctx.site();
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) ids.push((await created(own, importBody([customLine(`L${i}`)]))).id);
    const first = await own.call({ method: 'GET', url: ORDERS });
    assert.equal(first.statusCode, 200);
    const page1 = first.json();
    assertShape(OrdersPage, page1);
    assert.deepEqual(
      page1.result.map((o: { id: string }) => o.id),
      [...ids].reverse().slice(0, 50),
    );
    const cursor = page1.pagination.nextPageCursor;
    assert.equal(page1.pagination.nextPageUrl, `${BASE_URL}${ORDERS}?cursor=${encodeURIComponent(cursor)}`);
    const page2 = (await own.call({ method: 'GET', url: ORDERS, query: { cursor, limit: '5' } })).json();
    assert.deepEqual(
      page2.result.map((o: { id: string }) => o.id),
      [...ids].reverse().slice(50),
    );
    assert.deepEqual(page2.pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });

    const res = await own.call({ method: 'POST', url: `${ORDERS}/${ids[0]}/fulfillments`, payload: {} });
    assert.equal(res.statusCode, 204);
    const again = (await own.call({ method: 'GET', url: ORDERS })).json();
    assert.equal(again.result[0].id, ids[0]);
    assert.equal(again.result[0].fulfillmentStatus, 'FULFILLED');
  });

  test('an order changed while its page is being read is still listed, at its new place', async () => {
    const own = await ctx.site();
    const older = await created(own, importBody([customLine('Older')]));
    const newer = await created(own, importBody([customLine('Newer')]));
    // The fulfillment lands between the page's query and the reading of its orders.
    const { pool, state } = changingAfter(ctx.api.pool, /order by "modified_on" desc/, async () => {
      const res = await own.call({ method: 'POST', url: `${ORDERS}/${older.id}/fulfillments`, payload: {} });
      assert.equal(res.statusCode, 204);
    });
    const body = await listOrders({ ...ctx.api, pool }, own.websiteId, {}, `${BASE_URL}${ORDERS}`);
    const page = JSON.parse(body.toString());
    assert.ok(state.changed);
    assert.deepEqual(
      page.result.map((o: { id: string; fulfillmentStatus: string }) => [o.id, o.fulfillmentStatus]),
      [
        [older.id, 'FULFILLED'],
        [newer.id, 'PENDING'],
      ],
    );
  });

  test('filters: payment states (with the default), fulfillment status, customer, window', async () => {
    const own = await ctx.site();
    const paid = await created(own, importBody([customLine('A')], { customerEmail: 'a@example.com' }));
    const other = await created(own, importBody([customLine('B')], { customerEmail: 'b@example.com' }));
    const pending = await createOrder(
      ctx.api,
      own.websiteId,
      nativeDraft(ctx.clock.now(), { paymentState: 'PENDING' }),
    );
    const canceled = await createOrder(
      ctx.api,
      own.websiteId,
      nativeDraft(ctx.clock.now(), { fulfillmentStatus: 'CANCELED', paymentState: 'REFUNDED' }),
    );
    const ids = async (query: Record<string, string>) => {
      const res = await own.call({ method: 'GET', url: ORDERS, query });
      assert.equal(res.statusCode, 200, res.body);
      return res
        .json()
        .result.map((o: { id: string }) => o.id)
        .sort();
    };
    const sorted = (...xs: string[]) => xs.sort();
    assert.deepEqual(
      await ids({}),
      sorted(paid.id, other.id, canceled.order.id),
      'PENDING hidden by default',
    );
    assert.deepEqual(await ids({ paymentStates: 'PENDING' }), [pending.order.id]);
    assert.deepEqual(
      await ids({ paymentStates: 'PENDING,PAID' }),
      sorted(pending.order.id, paid.id, other.id),
    );
    assert.deepEqual(await ids({ fulfillmentStatus: 'CANCELED' }), [canceled.order.id]);
    assert.deepEqual(await ids({ customerId: paid.customerId }), [paid.id]);
    const window = {
      modifiedAfter: new Date(Date.parse(paid.modifiedOn) - 1).toISOString(),
      modifiedBefore: paid.modifiedOn,
    };
    assert.deepEqual(await ids(window), [paid.id], 'after, up to and including before');
  });

  test('the pairing and exclusivity rules answer with the platform messages', async () => {
    const own = await ctx.site();
    for (let i = 0; i < 51; i++) await created(own, importBody([customLine(`L${i}`)]));
    const cursor = (await own.call({ method: 'GET', url: ORDERS })).json().pagination.nextPageCursor;
    const t = '2026-01-01T00:00:00.000Z';
    const u = '2026-02-01T00:00:00.000Z';
    const cases: [Record<string, string>, string, string | RegExp][] = [
      [
        { cursor, modifiedAfter: t, modifiedBefore: u },
        'INVALID_ARGUMENT',
        'Cursor cannot be set while other parameters are present.',
      ],
      [
        { cursor, fulfillmentStatus: 'PENDING' },
        'INVALID_ARGUMENT',
        'Cursor cannot be set while other parameters are present.',
      ],
      [
        { modifiedAfter: t },
        'MISSING_ARGUMENT',
        "'modifiedBefore' and 'modifiedAfter' must both be specified.",
      ],
      [
        { modifiedBefore: u },
        'MISSING_ARGUMENT',
        "'modifiedBefore' and 'modifiedAfter' must both be specified.",
      ],
      [{ modifiedAfter: u, modifiedBefore: t }, 'INVALID_ARGUMENT', /modifiedBefore: must be later/],
      [{ modifiedAfter: 'yesterday', modifiedBefore: u }, 'INVALID_ARGUMENT', /modifiedAfter/],
      [
        { paymentStates: 'PAID,SETTLED' },
        'INVALID_ARGUMENT',
        /paymentStates: unknown payment state "SETTLED"/,
      ],
      [{ fulfillmentStatus: 'SHIPPED' }, 'INVALID_ARGUMENT', /fulfillmentStatus/],
      [{ cursor: 'forged' }, 'INVALID_ARGUMENT', /cursor/],
    ];
    for (const [query, subtype, message] of cases) {
      const res = await own.call({ method: 'GET', url: ORDERS, query });
      assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype);
      if (typeof message === 'string') assert.equal(res.json().message, message);
      else assert.match(res.json().message, message);
    }
  });
});

describe('fulfill an order', () => {
  const shipment = {
    shipDate: '2026-08-17T10:00:00Z',
    carrierName: 'UPS',
    service: 'Ground',
    trackingNumber: '1Z999',
    trackingUrl: 'https://www.ups.com/track?tracknum=1Z999',
  };

  test('adds the shipments, marks it FULFILLED, and a later fulfillment appends', async () => {
    const own = await ctx.site();
    const order = await created(own, importBody([customLine('A')]));
    const url = `${ORDERS}/${order.id}/fulfillments`;
    const from = ctx.clock.now().toISOString();
    const res = await own.call({
      method: 'POST',
      url,
      payload: { shouldSendNotification: true, shipments: [shipment] },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const read = (await own.call({ method: 'GET', url: `${ORDERS}/${order.id}` })).json();
    assert.equal(read.fulfillmentStatus, 'FULFILLED');
    assert.ok(read.fulfilledOn > from && read.fulfilledOn < ctx.clock.now().toISOString(), 'fulfilled then');
    assert.deepEqual(read.fulfillments, [shipment]);
    assert.ok(read.modifiedOn > order.modifiedOn);

    const more = { ...shipment, trackingNumber: '1Z1000', trackingUrl: undefined };
    assert.equal((await own.call({ method: 'POST', url, payload: { shipments: [more] } })).statusCode, 204);
    const again = (await own.call({ method: 'GET', url: `${ORDERS}/${order.id}` })).json();
    assert.deepEqual(again.fulfillments, [shipment, { ...more, trackingUrl: null }]);
    assert.equal(again.fulfilledOn, read.fulfilledOn, 'the first fulfillment time stays');
  });

  test('bad shipments are a 400, a CANCELED order a 400, an order in use a 409; nothing changes', async () => {
    const own = await ctx.site();
    const order = await created(own, importBody([customLine('A')]));
    const url = `${ORDERS}/${order.id}/fulfillments`;
    for (const bad of [
      { ...shipment, trackingUrl: 'ftp://x' },
      { ...shipment, carrierName: undefined },
      { ...shipment, shipDate: 'soon' },
      { ...shipment, service: 'x'.repeat(101) },
    ]) {
      const res = await own.call({ method: 'POST', url, payload: { shipments: [bad] } });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().type, 'INVALID_REQUEST_ERROR');
    }
    const canceled = await createOrder(
      ctx.api,
      own.websiteId,
      nativeDraft(ctx.clock.now(), { fulfillmentStatus: 'CANCELED' }),
    );
    const refused = await own.call({
      method: 'POST',
      url: `${ORDERS}/${canceled.order.id}/fulfillments`,
      payload: {},
    });
    assertError(refused, 400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /CANCELED/);

    await ctx.db.transaction().execute(async (trx) => {
      await trx.selectFrom('orders').select('id').where('id', '=', order.id).forUpdate().execute();
      const busy = await own.call({ method: 'POST', url, payload: { shipments: [shipment] } });
      assertError(busy, 409, 'CONFLICT', 'CONCURRENT_MODIFICATION');
    });
    const read = (await own.call({ method: 'GET', url: `${ORDERS}/${order.id}` })).json();
    assert.equal(read.fulfillmentStatus, 'PENDING');
    assert.deepEqual(read.fulfillments, []);
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
});
