import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PlacedOrder } from '../src/shared/order-model.ts';
import { TransactionPage, TransactionsById } from '../src/transactions/transactions.schemas.ts';
import { transactionDocument } from '../src/transactions/transaction-document.ts';
import { transactionRow } from '../src/transactions/transactions.service.ts';
import { insertOrder } from '../src/orders/orders.repo.ts';
import { stampRows } from '../src/db/change-clock.ts';
import type { Ids } from '../src/shared/ids.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { withCredential } from './helpers/inventory.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { countingIds, exactly, order, PLACED_ON } from './helpers/transactions.ts';

/**
 * Transaction documents (platform-surface 2.2): the two reads and their rules. How a document is
 * built from an order is in transactions.document.test.ts.
 */

const TRANSACTIONS = '/1.0/commerce/transactions';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

/** Random ids that remember the UUIDs they gave, and can give them again from any position. */
function recordingIds() {
  const given: string[] = [];
  const ids: Ids = {
    objectId: () => randomBytes(12).toString('hex'),
    uuid: () => {
      const id = randomUUID();
      given.push(id);
      return id;
    },
  };
  const replay = (from: number): Ids => {
    let i = from;
    return { objectId: ids.objectId, uuid: () => given[i++]! };
  };
  return { ids, replay };
}

interface Placed {
  order: PlacedOrder;
  documentId: string;
  modifiedOn: Date;
}

/**
 * Places orders as the order service does, in one transaction: a minimal orders row (the
 * document's foreign key needs one) with its transaction document, then the stamps, last.
 */
async function place(s: Site, count = 1, make = (_i: number) => order(s.websiteId), ids: Ids = ctx.ids) {
  return ctx.db.transaction().execute(async (trx): Promise<Placed[]> => {
    const orders = Array.from({ length: count }, (_, i) => make(i));
    const documentIds: string[] = [];
    for (const o of orders) {
      const document = transactionRow({ ids }, o);
      await insertOrder(
        trx,
        {
          id: o.id,
          website_id: s.websiteId,
          order_number: o.orderNumber,
          channel: o.channel,
          customer_id: null,
          customer_email: o.customerEmail,
          fulfillment_status: o.fulfillmentStatus,
          fulfilled_on: null,
          fulfillments: '[]',
          payment_state: o.paymentState,
          grand_total_minor: o.grandTotalMinor,
          placed_on: o.placedOn,
          modified_on: new Date(0),
          document: '{}',
        },
        document,
      );
      documentIds.push(document.id);
    }
    await stampRows(
      trx,
      ctx.clock,
      s.websiteId,
      'orders',
      orders.map((o) => o.id),
    );
    const stamps = await stampRows(trx, ctx.clock, s.websiteId, 'transaction_documents', documentIds, [
      'created_on',
      'modified_on',
    ]);
    return orders.map((o, i) => ({ order: o, documentId: documentIds[i]!, modifiedOn: stamps[i]! }));
  });
}

const list = (s: Site, query: Record<string, string> = {}) =>
  s.call({ method: 'GET', url: TRANSACTIONS, query });

async function page(s: Site, query: Record<string, string> = {}) {
  const res = await list(s, query);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assertShape(TransactionPage, body);
  return body as { documents: { id: string; modifiedOn: string }[]; pagination: Record<string, unknown> };
}

/** Every page of a list, following nextPageCursor; returns the document ids and the page sizes. */
async function allPages(s: Site, query: Record<string, string> = {}) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let body = await page(s, query);
  for (;;) {
    ids.push(...body.documents.map((d) => d.id));
    sizes.push(body.documents.length);
    const cursor = body.pagination.nextPageCursor as string | null;
    if (!cursor) break;
    assert.ok(sizes.length < 10, 'the pages come to an end: the cursor moves forward');
    assert.equal(
      body.pagination.nextPageUrl,
      `${BASE_URL}${TRANSACTIONS}?cursor=${encodeURIComponent(cursor)}`,
    );
    body = await page(s, { cursor });
  }
  assert.deepEqual(body.pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
  return { ids, sizes };
}

const invalid = (res: Parameters<typeof assertError>[0], message: RegExp, subtype = 'INVALID_ARGUMENT') =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

describe('GET /1.0/commerce/transactions/{documentIds}', () => {
  test('a document is its id, its stamped times, then the stored fields in wire order', async () => {
    const { ids, replay } = recordingIds();
    const [placed] = await place(site, 1, () => order(site.websiteId, { taxTotalMinor: 245 }), ids);
    const res = await site.call({ method: 'GET', url: `${TRANSACTIONS}/${placed!.documentId}` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assertShape(TransactionsById, body);
    const [doc] = body.documents;
    assert.deepEqual(Object.keys(doc).slice(0, 3), ['id', 'createdOn', 'modifiedOn']);
    assert.equal(doc.id, placed!.documentId);
    assert.match(doc.createdOn, ISO_MS);
    assert.equal(doc.modifiedOn, placed!.modifiedOn.toISOString());
    assert.equal(doc.createdOn, doc.modifiedOn, 'both stamped together, last');
    assert.ok(doc.modifiedOn > PLACED_ON.toISOString(), 'stamped from the change clock');
    const { id: _id, createdOn: _c, modifiedOn: _m, ...rest } = doc;
    // The document id took the first UUID; the builder the ones after it.
    assert.deepEqual(rest, transactionDocument(placed!.order, replay(1)));
    assert.deepEqual(Object.keys(rest), Object.keys(transactionDocument(placed!.order, countingIds())));
    assert.equal(rest.salesOrderId, placed!.order.id);
  });

  test('several ids: in the order asked, any case; more than 50 is a 400', async () => {
    const placed = await place(site, 3);
    const ids = [placed[2]!.documentId, placed[0]!.documentId.toUpperCase(), placed[1]!.documentId];
    const res = await site.call({ method: 'GET', url: `${TRANSACTIONS}/${ids.join('%2C')}` });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      res.json().documents.map((d: { id: string }) => d.id),
      ids.map((id) => id.toLowerCase()),
    );
    const many = Array.from({ length: 51 }, () => randomUUID()).join(',');
    invalid(await site.call({ method: 'GET', url: `${TRANSACTIONS}/${many}` }), /^documentIds: at most 50/);
    invalid(await site.call({ method: 'GET', url: `${TRANSACTIONS}/a,,b` }), /^documentIds: /);
  });

  test('an unknown id, a malformed one, or one of another website is a 404 and reveals nothing', async () => {
    const [own] = await place(site);
    const other = await ctx.site();
    const [theirs] = await place(other);
    for (const missing of [randomUUID(), 'not-a-uuid', theirs!.documentId]) {
      const res = await site.call({ method: 'GET', url: `${TRANSACTIONS}/${own!.documentId},${missing}` });
      assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /^transaction document not found: /);
    }
  });

  test("an import placed in the future does not carry the website's change clock there", async () => {
    const own = await ctx.site();
    const future = new Date('2099-01-01T00:00:00.000Z');
    const make = () => order(own.websiteId, { channel: 'external', placedOn: future, payment: null });
    const [imported] = await place(own, 1, make);
    const [next] = await place(own);
    const now = ctx.clock.now();
    for (const placed of [imported!, next!]) {
      assert.ok(placed.modifiedOn < now, `${placed.modifiedOn.toISOString()} is not ahead of the clock`);
    }
  });

  test("voided is the row's, in its wire place: a canceled order's document shows voided", async () => {
    const [placed] = await place(site);
    await ctx.db
      .updateTable('transaction_documents')
      .set({ voided: true })
      .where('id', '=', placed!.documentId)
      .execute();
    const doc = (await site.call({ method: 'GET', url: `${TRANSACTIONS}/${placed!.documentId}` })).json()
      .documents[0];
    assert.equal(doc.voided, true);
    assert.equal(Object.keys(doc).indexOf('voided'), 5);
  });
});

describe('GET /1.0/commerce/transactions', () => {
  test('newest change first, 50 a page, to the end, and never another website', async () => {
    const own = await ctx.site();
    const other = await ctx.site();
    const first = await place(own, 60);
    await place(other, 5);
    const second = await place(own, 50);
    const expected = [...first, ...second].map((p) => p.documentId).reverse();
    const { ids, sizes } = await allPages(own);
    assert.deepEqual(sizes, [50, 50, 10]);
    assert.deepEqual(ids, expected);
    const body = await page(own);
    const times = body.documents.map((d) => d.modifiedOn);
    assert.deepEqual(times, [...times].sort().reverse(), 'modifiedOn descending');
    const empty = await page(await ctx.site());
    assert.deepEqual(empty, {
      documents: [],
      pagination: { hasNextPage: false, nextPageCursor: null, nextPageUrl: null },
    });
  });

  test('a window (modifiedAfter, modifiedBefore] excludes its start, includes its end, and pages with its cursor', async () => {
    const own = await ctx.site();
    const placed = await place(own, 60);
    const at = (i: number) => placed[i]!.modifiedOn.toISOString();
    const small = await page(own, { modifiedAfter: at(1), modifiedBefore: at(3) });
    assert.deepEqual(
      small.documents.map((d) => d.id),
      [placed[3]!.documentId, placed[2]!.documentId],
    );
    const { ids, sizes } = await allPages(own, { modifiedAfter: at(4), modifiedBefore: at(58) });
    assert.deepEqual(sizes, [50, 4]);
    assert.deepEqual(
      ids,
      placed
        .slice(5, 59)
        .map((p) => p.documentId)
        .reverse(),
    );
  });

  test('reading a window that ends now closes it: a change made after gets a later modifiedOn', async () => {
    const own = await ctx.site();
    const [earlier] = await place(own);
    const end = new Date(ctx.clock.now().getTime() + 500);
    const body = await page(own, {
      modifiedAfter: new Date(earlier!.modifiedOn.getTime() - 1).toISOString(),
      modifiedBefore: end.toISOString(),
    });
    assert.deepEqual(
      body.documents.map((d) => d.id),
      [earlier!.documentId],
    );
    const [later] = await place(own);
    assert.ok(later!.modifiedOn > end, `${later!.modifiedOn.toISOString()} after ${end.toISOString()}`);
  });

  test('orderId gives the document of that order; an unknown order gives none', async () => {
    const placed = await place(site, 2);
    const body = await page(site, { orderId: placed[0]!.order.id });
    assert.deepEqual(
      body.documents.map((d) => d.id),
      [placed[0]!.documentId],
    );
    assert.deepEqual((await page(site, { orderId: randomBytes(12).toString('hex') })).documents, []);
    const other = await ctx.site();
    assert.deepEqual(
      (await page(other, { orderId: placed[0]!.order.id })).documents,
      [],
      'not across websites',
    );
  });

  test('the cursor stands alone (Q7): with any other parameter it is a 400 with the platform message', async () => {
    const own = await ctx.site();
    await place(own, 51);
    const cursor = (await page(own)).pagination.nextPageCursor as string;
    const message = exactly('Cursor cannot be set while other parameters are present.');
    const when = '2026-01-01T00:00:00.000Z';
    for (const extra of <Record<string, string>[]>[
      { modifiedAfter: when },
      { modifiedBefore: when },
      { modifiedAfter: when, modifiedBefore: '2026-02-01T00:00:00Z' },
      { orderId: randomBytes(12).toString('hex') },
    ]) {
      invalid(await list(own, { cursor, ...extra }), message);
    }
    const ignored = await list(own, { cursor, limit: '5' });
    assert.equal(ignored.statusCode, 200, 'unknown parameters such as limit are ignored');
    assert.equal(ignored.json().documents.length, 1);
    assert.equal((await list(own, { cursor: '', orderId: randomBytes(12).toString('hex') })).statusCode, 200);
  });

  test('the dates come together, the end after the start, in ISO 8601 UTC; orderId takes no window', async () => {
    const one = exactly("'modifiedBefore' and 'modifiedAfter' must both be specified.");
    invalid(await list(site, { modifiedAfter: '2026-01-01T00:00:00Z' }), one, 'MISSING_ARGUMENT');
    invalid(await list(site, { modifiedBefore: '2026-01-01T00:00:00Z' }), one, 'MISSING_ARGUMENT');
    const window = { modifiedAfter: '2026-01-02T00:00:00Z', modifiedBefore: '2026-01-02T00:00:00Z' };
    invalid(await list(site, window), /^modifiedBefore: must be later than modifiedAfter/);
    for (const bad of ['2026-01-01', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00+02:00', 'yesterday']) {
      invalid(
        await list(site, { modifiedAfter: bad, modifiedBefore: '2026-03-01T00:00:00Z' }),
        /^modifiedAfter: must be an ISO 8601 UTC time/,
      );
    }
    invalid(
      await list(site, {
        orderId: randomBytes(12).toString('hex'),
        modifiedAfter: '2026-01-01T00:00:00Z',
        modifiedBefore: '2026-03-01T00:00:00Z',
      }),
      /^orderId: cannot be combined with modifiedAfter and modifiedBefore/,
    );
  });

  test("a tampered cursor, another website's, or another list's is a 400", async () => {
    const own = await ctx.site();
    await place(own, 51);
    const cursor = (await page(own)).pagination.nextPageCursor as string;
    const [body, signature] = cursor.split('.');
    for (const bad of [
      `${body}x.${signature}`,
      'nonsense',
      ctx.api.cursors.encode('profiles', { w: own.websiteId }),
    ]) {
      invalid(await list(own, { cursor: bad }), /^cursor: /);
    }
    invalid(await list(site, { cursor }), /^cursor: /);
  });
});

describe('scopes', () => {
  test('both reads need website.transactions.read: website.orders does not give it (403 MISSING_SCOPE)', async () => {
    const [placed] = await place(site);
    const as = async (scopes: string) => {
      const { apiKey } = await createApiKey(ctx, { websiteId: site.websiteId, scopes });
      return withCredential(ctx, site, apiKey).call;
    };
    const urls = [TRANSACTIONS, `${TRANSACTIONS}/${placed!.documentId}`];
    for (const scopes of ['website.orders', 'website.orders.read,website.profiles', 'website.products']) {
      const call = await as(scopes);
      for (const url of urls) {
        assertError(await call({ method: 'GET', url }), 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE');
      }
    }
    const reader = await as('website.transactions.read');
    for (const url of urls) assert.equal((await reader({ method: 'GET', url })).statusCode, 200);
  });
});
