import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OrdersPage } from '../src/orders/orders.schemas.ts';
import { listOrders } from '../src/orders/orders.read.ts';
import { createOrder } from '../src/orders/orders.service.ts';
import { changingAfter } from './helpers/between-queries.ts';
import { created, customLine, importBody, nativeDraft, ORDERS } from './helpers/orders.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type TestContext } from './helpers/test-app.ts';

/**
 * Orders 1.0 (platform-surface 2.1): the list (its order, pages, filters and their rules), and
 * fulfilling an order. Importing is in orders.import.test.ts.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

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
