import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ConflictError,
  Emporium,
  EmporiumError,
  PermissionError,
  type OrderCreate,
} from '../../src/index.ts';
import {
  apiErrorBody,
  fakeFetch,
  instantSleep,
  json,
  networkError,
  type Answer,
  type SeenRequest,
} from '../helpers/fake-fetch.ts';

const BASE = 'https://api.example.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function make(handler: (request: SeenRequest, index: number) => Answer) {
  const fake = fakeFetch(handler);
  const { sleep } = instantSleep();
  const client = new Emporium({
    userAgent: 'sdk-tests/1.0',
    baseUrl: BASE,
    apiKey: 'k',
    fetch: fake.fetch,
    sleep,
  });
  return { client, calls: fake.calls };
}

const pathAndQuery = (calls: SeenRequest[]) => calls.map((c) => c.url.pathname + c.url.search);

/**
 * Two pages under `key` (the envelopes differ: result, documents, profiles): ids x0, x1 then x2,
 * the second page fetched with the cursor `next`.
 */
const twoPages = (key: string) => (request: SeenRequest) => {
  const second = request.url.searchParams.get('cursor') === 'next';
  return json(200, {
    [key]: second ? [{ id: 'x2' }] : [{ id: 'x0' }, { id: 'x1' }],
    pagination: {
      hasNextPage: !second,
      nextPageCursor: second ? null : 'next',
      nextPageUrl: second ? null : `${BASE}/x?cursor=next`,
    },
  });
};

/** Answers GET .../{ids} under `key` with the ids in the order asked, as the server does. */
const byIds = (key: string) => (request: SeenRequest) => {
  const ids = decodeURIComponent(request.url.pathname.split('/').pop()!).split(',');
  return json(200, { [key]: ids.map((id) => ({ id })) });
};

const orderBody: OrderCreate = {
  channelName: 'Etsy',
  externalOrderReference: 'ETSY-1',
  createdOn: '2026-08-16T08:14:10Z',
  priceTaxInterpretation: 'EXCLUSIVE',
  subtotal: { currency: 'USD', value: '10.00' },
  grandTotal: { currency: 'USD', value: '10.00' },
  lineItems: [
    {
      lineItemType: 'CUSTOM',
      title: 'Engraving',
      quantity: 1,
      unitPricePaid: { currency: 'USD', value: '10.00' },
    },
  ],
  fulfillments: [],
};

/** The server's answer to an import: the order with the key it was sent with. */
const created = (request: SeenRequest) =>
  json(201, { id: 'o1', orderNumber: '1', idempotencyKey: request.headers.get('idempotency-key') });

describe('orders', () => {
  test('list: the first page under result; for await follows the cursor, sent alone after the filters', async () => {
    const { client, calls } = make(twoPages('result'));
    const page = await client.orders.list({ fulfillmentStatus: 'PENDING', customerId: 'c1' });
    assert.deepEqual(
      page.result.map((o) => o.id),
      ['x0', 'x1'],
    );
    assert.equal(page.items, page.result);
    assert.equal(page.pagination.nextPageCursor, 'next');

    const ids: string[] = [];
    for await (const order of client.orders.list({
      modifiedAfter: '2026-01-01T00:00:00Z',
      modifiedBefore: '2026-02-01T00:00:00Z',
      paymentStates: ['PAID', 'PENDING'],
    })) {
      ids.push(order.id);
    }
    assert.deepEqual(ids, ['x0', 'x1', 'x2']);
    assert.deepEqual(pathAndQuery(calls), [
      '/1.0/commerce/orders?fulfillmentStatus=PENDING&customerId=c1',
      '/1.0/commerce/orders?modifiedAfter=2026-01-01T00%3A00%3A00Z&modifiedBefore=2026-02-01T00%3A00%3A00Z&paymentStates=PAID%2CPENDING',
      '/1.0/commerce/orders?cursor=next',
    ]);
  });

  test('get: the bare order at /1.0/commerce/orders/{id}', async () => {
    const { client, calls } = make(() => json(200, { id: 'abc', orderNumber: '7' }));
    const order = await client.orders.get('abc');
    assert.equal(order.orderNumber, '7');
    assert.equal(calls[0]!.method, 'GET');
    assert.equal(calls[0]!.url.pathname, '/1.0/commerce/orders/abc');
  });

  test('create: POSTs the body with a new UUID Idempotency-Key per call, or the key given', async () => {
    const { client, calls } = make(created);
    const first = await client.orders.create(orderBody);
    const second = await client.orders.create(orderBody);
    const mine = await client.orders.create(orderBody, { idempotencyKey: 'etsy-1' });
    assert.equal(calls[0]!.method, 'POST');
    assert.equal(calls[0]!.url.pathname, '/1.0/commerce/orders');
    assert.equal(calls[0]!.headers.get('content-type'), 'application/json');
    assert.deepEqual(JSON.parse(calls[0]!.body as string), orderBody);
    assert.match(first.idempotencyKey, UUID);
    assert.equal(calls[0]!.headers.get('idempotency-key'), first.idempotencyKey);
    assert.notEqual(first.idempotencyKey, second.idempotencyKey);
    assert.equal(mine.idempotencyKey, 'etsy-1');
    assert.equal(calls[2]!.headers.get('idempotency-key'), 'etsy-1');
    assert.equal(first.id, 'o1', 'resolves with the created order');
  });

  test('create is retried after a network error, a 5xx or CONCURRENT_MODIFICATION, with the same key each time', async () => {
    const answers = [
      networkError,
      () => json(503, apiErrorBody('SERVICE_UNAVAILABLE')),
      () => json(409, apiErrorBody('CONFLICT', 'CONCURRENT_MODIFICATION')),
    ];
    const { client, calls } = make((request, index) => answers[index]?.() ?? created(request));
    const order = await client.orders.create(orderBody);
    assert.equal(calls.length, 4);
    assert.deepEqual(
      calls.map((c) => c.headers.get('idempotency-key')),
      Array(4).fill(order.idempotencyKey),
    );
  });

  test('an order refused for stock is a ConflictError, not retried', async () => {
    const { client, calls } = make(() =>
      json(409, apiErrorBody('CONFLICT', 'INSUFFICIENT_STOCK', 'not enough of SHIRT-S')),
    );
    await assert.rejects(
      client.orders.create(orderBody),
      (e: unknown) => e instanceof ConflictError && e.subtype === 'INSUFFICIENT_STOCK',
    );
    assert.equal(calls.length, 1);
  });

  test('fulfill: POSTs the shipments to .../fulfillments and resolves on 204', async () => {
    const { client, calls } = make(() => new Response(null, { status: 204 }));
    const shipment = {
      shipDate: '2026-08-17T10:00:00Z',
      carrierName: 'USPS',
      service: 'Ground',
      trackingNumber: '9400 1000',
      trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=94001000',
    };
    assert.equal(
      await client.orders.fulfill('o/1', { shipments: [shipment], shouldSendNotification: false }),
      undefined,
    );
    assert.equal(calls[0]!.method, 'POST');
    assert.equal(calls[0]!.url.pathname, '/1.0/commerce/orders/o%2F1/fulfillments');
    assert.deepEqual(JSON.parse(calls[0]!.body as string), {
      shipments: [shipment],
      shouldSendNotification: false,
    });
    assert.equal(calls[0]!.headers.get('idempotency-key'), null);
  });

  test('fulfill is not retried after a network error or a 5xx: a second attempt could add the shipments twice', async () => {
    for (const answer of [networkError, () => json(500, apiErrorBody('SERVER_ERROR'))]) {
      const { client, calls } = make(answer);
      await assert.rejects(client.orders.fulfill('o1', { shipments: [] }), EmporiumError);
      assert.equal(calls.length, 1);
    }
  });
});

describe('transactions', () => {
  test('list: documents of every page, the filters first, then the cursor alone', async () => {
    const { client, calls } = make(twoPages('documents'));
    const first = await client.transactions.list({ orderId: 'o1' });
    assert.deepEqual(
      first.documents.map((d) => d.id),
      ['x0', 'x1'],
    );
    const all = await client.transactions
      .list({ modifiedAfter: '2026-01-01T00:00:00Z', modifiedBefore: '2026-02-01T00:00:00Z' })
      .toArray();
    assert.deepEqual(
      all.map((d) => d.id),
      ['x0', 'x1', 'x2'],
    );
    assert.deepEqual(pathAndQuery(calls), [
      '/1.0/commerce/transactions?orderId=o1',
      '/1.0/commerce/transactions?modifiedAfter=2026-01-01T00%3A00%3A00Z&modifiedBefore=2026-02-01T00%3A00%3A00Z',
      '/1.0/commerce/transactions?cursor=next',
    ]);
  });

  test('get: one document, or many in requests of 50, in the order asked', async () => {
    const { client, calls } = make(byIds('documents'));
    assert.deepEqual(await client.transactions.get('d1'), { id: 'd1' });
    assert.equal(calls[0]!.url.pathname, '/1.0/commerce/transactions/d1');
    const ids = Array.from({ length: 60 }, (_, i) => `d${59 - i}`);
    assert.deepEqual(
      (await client.transactions.get(ids)).map((d) => d.id),
      ids,
    );
    assert.equal(calls.length, 3);
    assert.deepEqual(await client.transactions.get([]), []);
    assert.equal(calls.length, 3);
  });
});

describe('profiles', () => {
  test('list: profiles of every page with filter, email and sorting; the cursor alone after', async () => {
    const { client, calls } = make(twoPages('profiles'));
    const ids: string[] = [];
    for await (const profile of client.profiles.list({
      filter: 'isCustomer,true;hasAccount,true',
      sortField: 'email',
      sortDirection: 'asc',
    })) {
      ids.push(profile.id);
    }
    assert.deepEqual(ids, ['x0', 'x1', 'x2']);
    await client.profiles.list({ email: 'Buyer+1@Example.com' });
    assert.deepEqual(pathAndQuery(calls), [
      '/1.0/profiles?filter=isCustomer%2Ctrue%3BhasAccount%2Ctrue&sortField=email&sortDirection=asc',
      '/1.0/profiles?cursor=next',
      '/1.0/profiles?email=Buyer%2B1%40Example.com',
    ]);
  });

  test('get: one profile, or many in requests of 50, in the order asked', async () => {
    const { client, calls } = make(byIds('profiles'));
    assert.deepEqual(await client.profiles.get('p1'), { id: 'p1' });
    assert.equal(calls[0]!.url.pathname, '/1.0/profiles/p1');
    const ids = Array.from({ length: 101 }, (_, i) => `p${i}`);
    assert.deepEqual(
      (await client.profiles.get(ids)).map((p) => p.id),
      ids,
    );
    assert.equal(calls.length, 4);
  });
});

describe('analytics', () => {
  /** Answers each request with a wrapper per id sent, as the server does, its orderCount the id's length. */
  const summaries = (request: SeenRequest) => {
    const { contactIds } = JSON.parse(request.body as string) as { contactIds: string[] };
    return json(200, {
      transactionsSummaryWrappers: contactIds.map((contactId) => ({
        contactId,
        transactionsSummary: { orderCount: contactId.length },
      })),
    });
  };

  test('transactionSummaries: POSTs the ids with groupBy contactId, in requests of 1000, answers in the order given', async () => {
    const { client, calls } = make(summaries);
    const ids = Array.from({ length: 2001 }, (_, i) => `c${i}`);
    const wrappers = await client.analytics.transactionSummaries(ids);
    assert.deepEqual(
      wrappers.map((w) => w.contactId),
      ids,
    );
    assert.equal(wrappers[1000]!.transactionsSummary.orderCount, 5);
    assert.equal(calls.length, 3);
    for (const call of calls) {
      assert.equal(call.method, 'POST');
      assert.equal(call.url.pathname, '/v1/analytics/transaction-summaries');
      assert.match(call.headers.get('content-type') ?? '', /^application\/json/);
    }
    const bodies = calls.map((c) => JSON.parse(c.body as string));
    assert.deepEqual(
      bodies.map((b) => [b.groupBy, b.contactIds.length]),
      [
        ['contactId', 1000],
        ['contactId', 1000],
        ['contactId', 1],
      ],
    );
    assert.deepEqual(await client.analytics.transactionSummaries([]), []);
    assert.equal(calls.length, 3, 'no ids, no request (the server refuses an empty list)');
  });

  test('transactionSummaries is a read: retried after a 503, and a refusal arrives typed', async () => {
    const retried = make((request, index) =>
      index === 0 ? json(503, apiErrorBody('SERVICE_UNAVAILABLE')) : summaries(request),
    );
    const [one] = await retried.client.analytics.transactionSummaries(['c1']);
    assert.equal(one!.contactId, 'c1');
    assert.equal(retried.calls.length, 2);

    const refused = make(() => json(403, apiErrorBody('AUTHORIZATION_ERROR', 'MISSING_SCOPE')));
    await assert.rejects(refused.client.analytics.transactionSummaries(['c1']), PermissionError);
  });
});
