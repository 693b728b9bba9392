import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PlacedOrder } from '../src/commerce/order-model.ts';
import { TransactionPage, TransactionsById } from '../src/commerce/transactions.schemas.ts';
import { allocate, taxRate, transactionDocument } from '../src/commerce/transaction-document.ts';
import { recordTransaction } from '../src/commerce/transactions.service.ts';
import { stampRows } from '../src/db/change-clock.ts';
import type { Ids } from '../src/ids.ts';
import { createApiKey } from '../src/owner/api-keys.service.ts';
import { withCredential } from './helpers/inventory.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** Transaction documents (platform-surface 2.2): the builder's sums, the two reads, their rules. */

const TRANSACTIONS = '/1.0/commerce/transactions';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

/** Ids counting up, so a document built twice comes out the same. */
function countingIds(): Ids {
  let n = 0;
  const next = () => (++n).toString(16).padStart(12, '0');
  return { objectId: () => next().padStart(24, '0'), uuid: () => `00000000-0000-4000-8000-${next()}` };
}

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

const address = (countryCode: string | null, state: string | null = null) => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '1 Main St',
  address2: null,
  city: 'Albany',
  state,
  countryCode,
  postalCode: '12207',
  phone: null,
});

const line = (unitPricePaidMinor: number, quantity: number) => ({
  id: randomBytes(12).toString('hex'),
  lineItemType: 'PHYSICAL_PRODUCT' as const,
  variantId: randomUUID(),
  sku: 'SKU-1',
  productId: randomBytes(12).toString('hex'),
  productName: 'Mug',
  quantity,
  unitPricePaidMinor,
  weight: 0,
  width: 0,
  length: 0,
  height: 0,
  variantOptions: [],
  customizations: null,
  imageUrl: null,
});

let orderNumber = 0;
const PLACED_ON = new Date('2025-12-01T10:00:00.000Z');

/** An order of two mugs at 15.00 with 5.00 shipping, paid by card with a 1.32 fee. */
function order(websiteId: string, overrides: Partial<PlacedOrder> = {}): PlacedOrder {
  return {
    id: randomBytes(12).toString('hex'),
    websiteId,
    currency: 'USD',
    orderNumber: ++orderNumber,
    channel: 'web',
    channelName: 'Squarespace',
    externalOrderReference: null,
    createdOn: PLACED_ON.toISOString(),
    placedOn: PLACED_ON,
    testmode: false,
    customerEmail: 'buyer@example.com',
    customerId: null,
    billingAddress: null,
    shippingAddress: address('US', 'NY'),
    lineItems: [line(1500, 2)],
    internalNotes: [],
    shippingLines: [{ method: 'USPS Flat Rate', amountMinor: 500 }],
    discountLines: [],
    formSubmission: null,
    subtotalMinor: 3000,
    shippingTotalMinor: 500,
    discountTotalMinor: 0,
    taxTotalMinor: 0,
    refundedTotalMinor: 0,
    grandTotalMinor: 3500,
    priceTaxInterpretation: 'EXCLUSIVE',
    paymentState: 'PAID',
    fulfillmentStatus: 'PENDING',
    fulfilledOn: null,
    fulfillments: [],
    shippingOptionName: null,
    shippingOptionServiceType: null,
    payment: {
      provider: 'STRIPE',
      creditCardType: 'VISA',
      externalTransactionId: 'ch_1FFCJCLMG4qggZ0BzchTZjwR',
      paidOn: PLACED_ON,
      processingFeeMinor: 132,
    },
    ...overrides,
  };
}

interface Placed {
  order: PlacedOrder;
  documentId: string;
  modifiedOn: Date;
}

/**
 * Places orders as the order service does, in one transaction: a minimal orders row (the
 * document's foreign key needs one), the transaction document, then the stamps, last.
 */
async function place(s: Site, count = 1, make = (_i: number) => order(s.websiteId), ids: Ids = ctx.ids) {
  return ctx.db.transaction().execute(async (trx): Promise<Placed[]> => {
    const orders = Array.from({ length: count }, (_, i) => make(i));
    const documentIds: string[] = [];
    for (const o of orders) {
      await trx
        .insertInto('orders')
        .values({
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
        })
        .execute();
      documentIds.push(await recordTransaction(trx, { ids }, o));
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

/** Minor units of a USD amount, exactly. */
const cents = (money: { currency: string; value: string }) => {
  assert.equal(money.currency, 'USD');
  assert.match(money.value, /^-?\d+\.\d{2}$/);
  return Number(money.value.replace('.', ''));
};
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

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

const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

describe('the document of an order (transactionDocument)', () => {
  test('allocate splits in proportion, rounding down, the remainder on the last share, summing exactly', () => {
    assert.deepEqual(allocate(100, [1000, 999, 7]), [49, 49, 2]);
    assert.deepEqual(allocate(10, [1, 1, 1]), [3, 3, 4]);
    assert.deepEqual(allocate(5, [0, 0]), [0, 5], 'no weight at all: the last share takes everything');
    assert.deepEqual(allocate(7, []), []);
    assert.deepEqual(allocate(99_999_999, [99_999_999_000_000, 1]), [99_999_998, 1], 'no float overflow');
  });

  test('taxRate is a percent with two decimals, rounded half up', () => {
    assert.equal(taxRate(123, 1906), '6.45');
    assert.equal(taxRate(7, 100), '7.00');
    assert.equal(taxRate(1, 8), '12.50');
    assert.equal(taxRate(5, 0), '0.00');
  });

  test('fields in the wire order of 2.2.3, money as strings in the order currency', () => {
    const doc = transactionDocument(order('w'), countingIds());
    assert.deepEqual(Object.keys(doc), [
      'customerEmail',
      'salesOrderId',
      'voided',
      'totalSales',
      'totalNetSales',
      'totalNetShipping',
      'totalTaxes',
      'total',
      'totalNetPayment',
      'payments',
      'salesLineItems',
      'discounts',
      'shippingLineItems',
      'paymentGatewayError',
    ]);
    assert.deepEqual(Object.keys(doc.salesLineItems[0]!), [
      'id',
      'discountAmount',
      'totalSales',
      'totalNetSales',
      'total',
      'taxes',
    ]);
    assert.deepEqual(Object.keys(doc.shippingLineItems[0]!), [
      'id',
      'description',
      'amount',
      'discountAmount',
      'netAmount',
      'taxes',
    ]);
    assert.deepEqual(doc.totalSales, { currency: 'USD', value: '30.00' });
    assert.equal(doc.voided, false);
    assert.equal(doc.paymentGatewayError, null);
    assert.deepEqual(doc.shippingLineItems[0]!.description, 'USPS Flat Rate');
    assert.deepEqual(doc.salesLineItems[0]!.taxes, [], 'no tax, no Tax entry');
    const yen = transactionDocument(
      order('w', { currency: 'JPY', lineItems: [line(1500, 1)], subtotalMinor: 1500, grandTotalMinor: 2000 }),
      countingIds(),
    );
    assert.deepEqual(yen.total, { currency: 'JPY', value: '2000' });
  });

  test('discounts and taxes that do not divide evenly: the lines add up to the totals to the cent (EXCLUSIVE)', () => {
    const o = order('w', {
      lineItems: [line(1000, 1), line(333, 3), line(7, 1)],
      subtotalMinor: 2006,
      discountLines: [
        { name: 'Spring', promoCode: 'SPRING', amountMinor: 60 },
        { name: 'Loyalty', promoCode: null, amountMinor: 40 },
      ],
      discountTotalMinor: 100,
      taxTotalMinor: 123,
      grandTotalMinor: 2006 - 100 + 123 + 500,
    });
    const doc = transactionDocument(o, countingIds());
    const lines = doc.salesLineItems;
    assert.deepEqual(
      lines.map((l) => cents(l.totalSales)),
      [1000, 999, 7],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.discountAmount)),
      [49, 49, 2],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.totalNetSales)),
      [951, 950, 5],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.taxes[0]!.amount)),
      [61, 61, 1],
    );
    assert.deepEqual(
      lines.map((l) => cents(l.total)),
      [1012, 1011, 6],
      'net sales plus tax',
    );
    assert.equal(
      sum(lines.map((l) => cents(l.discountAmount))),
      cents(doc.totalSales) - cents(doc.totalNetSales),
    );
    assert.equal(sum(lines.map((l) => cents(l.totalNetSales))), cents(doc.totalNetSales));
    assert.equal(sum(lines.map((l) => cents(l.taxes[0]!.amount))), cents(doc.totalTaxes));
    assert.equal(
      sum(lines.map((l) => cents(l.total))) + cents(doc.totalNetShipping),
      cents(doc.total),
      'the lines and the shipping make the grand total',
    );
    assert.deepEqual(
      [doc.totalSales, doc.totalNetSales, doc.totalNetShipping, doc.totalTaxes, doc.total].map(cents),
      [2006, 1906, 500, 123, 2529],
    );
    assert.deepEqual(lines[0]!.taxes[0], {
      amount: { currency: 'USD', value: '0.61' },
      rate: '6.45',
      name: 'Sales tax',
      jurisdiction: 'COUNTRY:US,STATE:NY',
    });
    assert.deepEqual(doc.discounts, [
      { description: 'Spring', name: 'Spring', amount: { currency: 'USD', value: '0.60' } },
      { description: 'Loyalty', name: 'Loyalty', amount: { currency: 'USD', value: '0.40' } },
    ]);
  });

  test('INCLUSIVE prices hold the tax: line totals are their net sales, the rate is over the net without tax', () => {
    const o = order('w', {
      priceTaxInterpretation: 'INCLUSIVE',
      lineItems: [line(1100, 1), line(550, 1), line(101, 1)],
      subtotalMinor: 1751,
      discountTotalMinor: 51,
      discountLines: [{ name: 'Promo', promoCode: 'P', amountMinor: 51 }],
      taxTotalMinor: 155,
      grandTotalMinor: 1751 - 51 + 500,
    });
    const doc = transactionDocument(o, countingIds());
    const lines = doc.salesLineItems;
    assert.equal(sum(lines.map((l) => cents(l.discountAmount))), 51);
    assert.equal(sum(lines.map((l) => cents(l.taxes[0]!.amount))), 155);
    assert.deepEqual(
      lines.map((l) => cents(l.total)),
      lines.map((l) => cents(l.totalNetSales)),
    );
    assert.equal(cents(doc.totalNetSales), 1700);
    assert.equal(cents(doc.totalNetSales) + cents(doc.totalNetShipping), cents(doc.total));
    assert.equal(lines[0]!.taxes[0]!.rate, taxRate(155, 1700 - 155));
    assert.equal(lines[0]!.taxes[0]!.rate, '10.03');
  });

  test('the jurisdiction comes from the shipping address, else the billing one; null without a country', () => {
    const rate = (overrides: Partial<PlacedOrder>) =>
      transactionDocument(order('w', { taxTotalMinor: 100, ...overrides }), countingIds()).salesLineItems[0]!
        .taxes[0]!.jurisdiction;
    assert.equal(rate({}), 'COUNTRY:US,STATE:NY');
    assert.equal(rate({ shippingAddress: address('us') }), 'COUNTRY:US');
    assert.equal(rate({ shippingAddress: null, billingAddress: address('CA', 'ON') }), 'COUNTRY:CA,STATE:ON');
    assert.equal(rate({ shippingAddress: null, billingAddress: null }), null);
  });

  test('a card payment: amount is the grand total, net of the fee, one processing fee in the site currency', () => {
    const doc = transactionDocument(order('w'), countingIds());
    assert.equal(doc.payments.length, 1);
    const [payment] = doc.payments;
    assert.deepEqual(Object.keys(payment!), [
      'id',
      'amount',
      'refundedAmount',
      'netAmount',
      'creditCardType',
      'provider',
      'refunds',
      'processingFees',
      'giftCardId',
      'paidOn',
      'externalTransactionId',
      'externalTransactionProperties',
      'externalCustomerId',
    ]);
    const { id: feeId, ...fee } = payment!.processingFees[0]!;
    assert.match(feeId, /^[A-Za-z0-9]{10}$/);
    assert.deepEqual(fee, {
      amount: { currency: 'USD', value: '1.32' },
      amountGatewayCurrency: { currency: 'USD', value: '1.32' },
      exchangeRate: 1,
      refundedAmount: { currency: 'USD', value: '0.00' },
      refundedAmountGatewayCurrency: { currency: 'USD', value: '0.00' },
      netAmount: { currency: 'USD', value: '1.32' },
      netAmountGatewayCurrency: { currency: 'USD', value: '1.32' },
      feeRefunds: [],
    });
    assert.deepEqual(
      { ...payment!, id: 'x', processingFees: [] },
      {
        id: 'x',
        amount: { currency: 'USD', value: '35.00' },
        refundedAmount: { currency: 'USD', value: '0.00' },
        netAmount: { currency: 'USD', value: '33.68' },
        creditCardType: 'VISA',
        provider: 'STRIPE',
        refunds: [],
        processingFees: [],
        giftCardId: null,
        paidOn: '2025-12-01T10:00:00.000Z',
        externalTransactionId: 'ch_1FFCJCLMG4qggZ0BzchTZjwR',
        externalTransactionProperties: [],
        externalCustomerId: null,
      },
    );
    assert.deepEqual(doc.totalNetPayment, { currency: 'USD', value: '33.68' });
    const free = transactionDocument(
      order('w', { payment: { ...order('w').payment!, processingFeeMinor: 0 } }),
      countingIds(),
    );
    assert.deepEqual(free.payments[0]!.processingFees, [], 'no fee, no ProcessingFee');
    assert.deepEqual(free.totalNetPayment, { currency: 'USD', value: '35.00' });
  });

  test('a net below zero (a discount above the subtotal) is a signed amount, not a broken string', () => {
    const doc = transactionDocument(
      order('w', { subtotalMinor: 3000, discountTotalMinor: 3205, grandTotalMinor: 295 }),
      countingIds(),
    );
    assert.deepEqual(doc.totalNetSales, { currency: 'USD', value: '-2.05' });
    assert.deepEqual(doc.salesLineItems[0]!.totalNetSales, { currency: 'USD', value: '-2.05' });
  });

  test('an import (paid on another channel) has no payment and a zero net payment', () => {
    const doc = transactionDocument(order('w', { channel: 'external', payment: null }), countingIds());
    assert.deepEqual(doc.payments, []);
    assert.deepEqual(doc.totalNetPayment, { currency: 'USD', value: '0.00' });
    assert.deepEqual(doc.total, { currency: 'USD', value: '35.00' });
  });
});

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
