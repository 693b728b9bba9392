import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConflictError, Emporium, type DiscountCreate } from '../../src/index.ts';
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

function make(handler: (request: SeenRequest, index: number) => Answer) {
  const fake = fakeFetch(handler);
  const client = new Emporium({
    userAgent: 'sdk-tests/1.0',
    baseUrl: BASE,
    apiKey: 'k',
    fetch: fake.fetch,
    sleep: instantSleep().sleep,
  });
  return { client, calls: fake.calls };
}

const pathAndQuery = (calls: SeenRequest[]) => calls.map((c) => c.url.pathname + c.url.search);

/** Five discounts d0..d4 served by offset and limit, as the server pages them. */
const fivePages = (request: SeenRequest) => {
  const offset = Number(request.url.searchParams.get('offset') ?? 0);
  const limit = Number(request.url.searchParams.get('limit') ?? 50);
  const all = [0, 1, 2, 3, 4].map((i) => ({ id: `d${i}` }));
  return json(200, {
    discounts: all.slice(offset, offset + limit),
    hasNextPage: offset + limit < all.length,
    hasPreviousPage: offset > 0,
  });
};

const discount: DiscountCreate = {
  name: 'Ten off',
  criteria: { type: 'ANY_ORDER' },
  template: { type: 'PERCENTAGE', percentage: 10 },
  trigger: { type: 'CODE', promoCode: 'TEN' },
  validFrom: '2026-01-01T00:00:00Z',
};

describe('discounts', () => {
  test('list: awaited, the first page; for await asks each next page from the offset after the last', async () => {
    const { client, calls } = make(fivePages);
    const page = await client.discounts.list({ limit: 2, status: 'ACTIVE', trigger: ['AUTO', 'CODE'] });
    assert.deepEqual(
      page.items.map((d) => d.id),
      ['d0', 'd1'],
    );
    assert.equal(page.hasNextPage, true);
    const all = await client.discounts
      .list({ limit: 2, status: 'ACTIVE', trigger: ['AUTO', 'CODE'] })
      .toArray();
    assert.deepEqual(
      all.map((d) => d.id),
      ['d0', 'd1', 'd2', 'd3', 'd4'],
    );
    assert.deepEqual(pathAndQuery(calls), [
      '/v1/commerce/discounts?limit=2&status=ACTIVE&trigger=AUTO%2CCODE',
      '/v1/commerce/discounts?limit=2&status=ACTIVE&trigger=AUTO%2CCODE',
      '/v1/commerce/discounts?limit=2&status=ACTIVE&trigger=AUTO%2CCODE&offset=2',
      '/v1/commerce/discounts?limit=2&status=ACTIVE&trigger=AUTO%2CCODE&offset=4',
    ]);
  });

  test('list from an offset iterates from there', async () => {
    const { client } = make(fivePages);
    const rest = await client.discounts.list({ offset: 3, limit: 1 }).toArray();
    assert.deepEqual(
      rest.map((d) => d.id),
      ['d3', 'd4'],
    );
  });

  test('get, create, replace and delete: their methods and paths, the discount out of its envelope', async () => {
    const { client, calls } = make((request) => {
      if (request.method === 'DELETE') return new Response(null, { status: 204 });
      return json(request.method === 'POST' ? 201 : 200, { discount: { id: 'd/1', name: 'Ten off' } });
    });
    assert.deepEqual(await client.discounts.create(discount), { id: 'd/1', name: 'Ten off' });
    assert.equal((await client.discounts.get('d/1')).id, 'd/1');
    assert.equal((await client.discounts.replace('d/1', { ...discount, name: 'Eleven' })).id, 'd/1');
    assert.equal(await client.discounts.delete('d/1'), undefined);
    assert.deepEqual(
      calls.map((c) => `${c.method} ${c.url.pathname}`),
      [
        'POST /v1/commerce/discounts',
        'GET /v1/commerce/discounts/d%2F1',
        'PUT /v1/commerce/discounts/d%2F1',
        'DELETE /v1/commerce/discounts/d%2F1',
      ],
    );
    assert.equal(JSON.parse(String(calls[2]!.body)).name, 'Eleven');
  });

  test('a replace lost to the network is sent again (a whole replace twice is the same); a create is not', async () => {
    const put = make((_r, i) => (i === 0 ? networkError() : json(200, { discount: { id: 'd1' } })));
    assert.equal((await put.client.discounts.replace('d1', discount)).id, 'd1');
    assert.equal(put.calls.length, 2);
    const post = make(() => networkError());
    await assert.rejects(post.client.discounts.create(discount));
    assert.equal(post.calls.length, 1);
  });

  test('a promo code in use: ConflictError with the subtype', async () => {
    const { client } = make(() => json(409, apiErrorBody('CONFLICT', 'PROMO_CODE_CONFLICT')));
    await assert.rejects(client.discounts.create(discount), (error: unknown) => {
      assert.ok(error instanceof ConflictError);
      assert.equal(error.subtype, 'PROMO_CODE_CONFLICT');
      return true;
    });
  });

  test('fulfillments.fulfillmentOptions.list: the options, out of their envelope', async () => {
    const option = { id: 'o1', name: 'Standard Shipping', type: 'SHIPPING', availableServices: [] };
    const { client, calls } = make(() => json(200, { fulfillmentOptions: [option] }));
    assert.deepEqual(await client.fulfillments.fulfillmentOptions.list(), [option]);
    assert.deepEqual(pathAndQuery(calls), ['/v1/fulfillments/fulfillment-options']);
  });
});
