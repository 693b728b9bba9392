import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { TransactionSummaries } from '../src/analytics/transaction-summaries.schemas.ts';
import { decimalToMinorUnits } from '../src/shared/money.ts';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { withCredential } from './helpers/inventory.ts';
import { registerApp } from './helpers/oauth.ts';
import { customLine, importBody, importOrder } from './helpers/orders.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { ordersOf, seeOther, Shopper, shirt } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/**
 * Transaction summaries of contacts (platform-surface 2.8), summed from the transaction documents
 * of orders placed through the order services: imports and the store's checkout.
 */

const SUMMARIES = '/v1/analytics/transaction-summaries';

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

interface Money {
  currency: string;
  value: string;
}

interface Summary {
  firstOrderSubmittedOn: string | null;
  lastOrderSubmittedOn: string | null;
  orderCount: number;
  totalOrderAmount: Money;
  totalRefundAmount: Money;
  firstDonationSubmittedOn: string | null;
  lastDonationSubmittedOn: string | null;
  donationCount: number;
  totalDonationAmount: Money;
}

const post = (s: Site, payload: unknown) =>
  s.call({ method: 'POST', url: SUMMARIES, payload: payload as object });

/** The wrappers for these ids, checked against the route's schema. */
async function summaries(s: Site, contactIds: string[]) {
  const res = await post(s, { contactIds, groupBy: 'contactId' });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assertShape(TransactionSummaries, body);
  assert.deepEqual(Object.keys(body), ['transactionsSummaryWrappers']);
  return body.transactionsSummaryWrappers as { contactId: string; transactionsSummary: Summary }[];
}

const summaryOf = async (s: Site, contactId: string) =>
  (await summaries(s, [contactId]))[0]!.transactionsSummary;

const empty = (currency: string, zero = '0.00'): Summary => ({
  firstOrderSubmittedOn: null,
  lastOrderSubmittedOn: null,
  orderCount: 0,
  totalOrderAmount: { currency, value: zero },
  totalRefundAmount: { currency, value: zero },
  firstDonationSubmittedOn: null,
  lastDonationSubmittedOn: null,
  donationCount: 0,
  totalDonationAmount: { currency, value: zero },
});

const email = () => `buyer-${randomBytes(4).toString('hex')}@example.com`;

/** An imported order of one custom line at `price`, placed (createdOn) at `on`; the created order. */
async function imported(s: Site, buyer: string, price: string, on = '2026-08-16T08:14:10Z') {
  const res = await importOrder(
    s,
    importBody([customLine('Engraving', 1, price)], { customerEmail: buyer, createdOn: on }),
  );
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; customerId: string; grandTotal: Money };
}

/** Minor units of a two-decimal amount, exactly. */
const cents = (money: Money) => {
  assert.match(money.value, /^\d+\.\d{2}$/);
  return Number(money.value.replace('.', ''));
};

describe('decimalToMinorUnits (the sums the database makes)', () => {
  test('exact in the precision of each currency, past the bounds of one amount and of a float', () => {
    assert.equal(decimalToMinorUnits('106.60', 'USD'), 10660);
    assert.equal(decimalToMinorUnits('0.3', 'USD'), 30);
    assert.equal(decimalToMinorUnits('-3.05', 'USD'), -305);
    assert.equal(decimalToMinorUnits('90071992547409.91', 'USD'), 9007199254740991);
    assert.equal(decimalToMinorUnits('1502', 'JPY'), 1502);
    assert.equal(decimalToMinorUnits('1.015', 'BHD'), 1015);
    assert.equal(decimalToMinorUnits('2.500', 'USD'), 250, 'trailing zeros past the precision');
    assert.throws(() => decimalToMinorUnits('2.501', 'USD'), /not an amount of USD/);
    assert.throws(() => decimalToMinorUnits('1e3', 'USD'), /not an amount of USD/);
  });
});

describe('POST /v1/analytics/transaction-summaries', () => {
  test("a contact's imported orders: count, submitted dates from their createdOn, the sum to the cent", async () => {
    const buyer = email();
    // 0.10 + 0.20 + 19.99 is 20.289999... in floating point.
    const orders = [
      await imported(site, buyer, '0.10', '2026-03-01T10:00:00Z'),
      await imported(site, buyer, '0.20', '2026-01-15T08:30:00.250Z'),
      await imported(site, buyer.toUpperCase(), '19.99', '2026-02-01T00:00:00Z'),
    ];
    const contactId = orders[0]!.customerId;
    assert.ok(
      orders.every((o) => o.customerId === contactId),
      "one contact: the buyer's e-mail whatever its case",
    );

    const summary = await summaryOf(site, contactId);
    assert.deepEqual(summary, {
      firstOrderSubmittedOn: '2026-01-15T08:30:00.250Z',
      lastOrderSubmittedOn: '2026-03-01T10:00:00.000Z',
      orderCount: 3,
      totalOrderAmount: { currency: 'USD', value: '20.29' },
      totalRefundAmount: { currency: 'USD', value: '0.00' },
      firstDonationSubmittedOn: null,
      lastDonationSubmittedOn: null,
      donationCount: 0,
      totalDonationAmount: { currency: 'USD', value: '0.00' },
    });
    assert.equal(
      cents(summary.totalOrderAmount),
      orders.reduce((sum, o) => sum + cents(o.grandTotal), 0),
      "the orders' grand totals",
    );

    const profile = await site.call({ method: 'GET', url: `/1.0/profiles/${contactId}` });
    assert.deepEqual(
      profile.json().profiles[0].transactionsSummary,
      summary,
      "the profile's summary, field for field and in the same order",
    );
    assert.deepEqual(Object.keys(summary), Object.keys(profile.json().profiles[0].transactionsSummary));
  });

  test('a store checkout counts with the imports of the same buyer', async () => {
    const own = await ctx.site();
    const { small, medium } = await shirt(own, 5);
    const shopper = new Shopper(ctx, own.websiteId);
    seeOther(await shopper.add(small, 2));
    seeOther(await shopper.add(medium, 1));
    seeOther(await shopper.checkout({ email: 'grace@example.com' }));
    const [web] = await ordersOf(ctx, own.websiteId);
    const webOrder = (await own.call({ method: 'GET', url: `/1.0/commerce/orders/${web!.id}` })).json();
    const later = await imported(own, 'Grace@example.com', '12.34', '2099-01-01T00:00:00Z');
    assert.equal(later.customerId, webOrder.customerId);

    const summary = await summaryOf(own, later.customerId);
    assert.equal(summary.orderCount, 2);
    assert.equal(cents(summary.totalOrderAmount), cents(webOrder.grandTotal) + 1234);
    assert.equal(summary.firstOrderSubmittedOn, webOrder.createdOn);
    assert.equal(summary.lastOrderSubmittedOn, '2099-01-01T00:00:00.000Z');
    assert.deepEqual(
      summary.totalRefundAmount,
      { currency: 'USD', value: '0.00' },
      'Emporium refunds nothing',
    );
  });

  test("a canceled order's voided document is left out; with every order canceled the summary is empty", async () => {
    const own = await ctx.site();
    const buyer = email();
    const first = await imported(own, buyer, '10.00', '2026-01-01T00:00:00Z');
    const second = await imported(own, buyer, '2.50', '2026-02-01T00:00:00Z');
    const third = await imported(own, buyer, '7.05', '2026-03-01T00:00:00Z');
    await cancelOrder(ctx.api, own.websiteId, third.id, { restock: false });
    assert.deepEqual(await summaryOf(own, first.customerId), {
      ...empty('USD'),
      firstOrderSubmittedOn: '2026-01-01T00:00:00.000Z',
      lastOrderSubmittedOn: '2026-02-01T00:00:00.000Z',
      orderCount: 2,
      totalOrderAmount: { currency: 'USD', value: '12.50' },
    });
    await cancelOrder(ctx.api, own.websiteId, first.id, { restock: false });
    await cancelOrder(ctx.api, own.websiteId, second.id, { restock: false });
    assert.deepEqual(await summaryOf(own, first.customerId), empty('USD'));
  });

  test("refunds on a document's payments are summed into totalRefundAmount, voided documents' not", async () => {
    const own = await ctx.site();
    const { small } = await shirt(own, 5);
    const paid = async (buyer: string) => {
      const shopper = new Shopper(ctx, own.websiteId);
      seeOther(await shopper.add(small, 1));
      seeOther(await shopper.checkout({ email: buyer }));
    };
    await paid('refunds@example.com');
    await paid('refunds@example.com');
    const orders = await ordersOf(ctx, own.websiteId);
    // Emporium makes no refunds (the platform's API has none): one is written into the stored
    // document as the platform records it, on the payment.
    const refund = (orderId: string, value: string) =>
      sql`UPDATE transaction_documents
          SET document = jsonb_set(document::jsonb, '{payments,0,refundedAmount,value}', to_jsonb(${value}::text))::json
          WHERE order_id = ${orderId}`.execute(ctx.db);
    await refund(orders[0]!.id, '1.05');
    await refund(orders[1]!.id, '2.10');
    const contactId = orders[0]!.customer_id!;
    assert.deepEqual((await summaryOf(own, contactId)).totalRefundAmount, { currency: 'USD', value: '3.15' });
    await cancelOrder(ctx.api, own.websiteId, orders[1]!.id, { restock: false });
    const summary = await summaryOf(own, contactId);
    assert.equal(summary.orderCount, 1);
    assert.deepEqual(summary.totalRefundAmount, { currency: 'USD', value: '1.05' });
  });

  test("amounts in the website's currency and its precision: JPY has no decimals, BHD three", async () => {
    for (const [currency, prices, total, zero] of [
      ['JPY', ['1500', '2'], '1502', '0'],
      ['BHD', ['1.005', '0.010'], '1.015', '0.000'],
    ] as const) {
      const own = await ctx.site({ currency });
      const buyer = email();
      let contactId = '';
      for (const value of prices) {
        const money = { currency, value };
        const res = await importOrder(own, {
          ...importBody([]),
          customerEmail: buyer,
          lineItems: [{ lineItemType: 'CUSTOM', title: 'Tea', quantity: 1, unitPricePaid: money }],
          subtotal: money,
          grandTotal: money,
        });
        assert.equal(res.statusCode, 201, res.body);
        contactId = res.json().customerId;
      }
      const [found, unknown] = await summaries(own, [contactId, randomBytes(12).toString('hex')]);
      assert.deepEqual(found!.transactionsSummary.totalOrderAmount, { currency, value: total });
      assert.deepEqual(found!.transactionsSummary.totalRefundAmount, { currency, value: zero });
      assert.deepEqual(unknown!.transactionsSummary, empty(currency, zero));
    }
  });

  test('one wrapper per id sent, in that order, repeats included, echoed as sent; unknown ids get zeros and nulls', async () => {
    const own = await ctx.site();
    const other = await ctx.site();
    const mine = await imported(own, email(), '4.00');
    const yours = await imported(other, email(), '9.00');
    const contactIds = [
      randomBytes(12).toString('hex'),
      mine.customerId,
      'not-a-contact-id',
      yours.customerId,
      mine.customerId.toUpperCase(),
      '',
      mine.customerId,
      'a6e74e0c-2b4a-4b63-b4a3-9c5d1f3e8a7b',
    ];
    const wrappers = await summaries(own, contactIds);
    assert.deepEqual(
      wrappers.map((w) => w.contactId),
      contactIds,
    );
    const counts = wrappers.map((w) => w.transactionsSummary.orderCount);
    assert.deepEqual(counts, [0, 1, 0, 0, 1, 0, 1, 0], "another website's contact is unknown here");
    for (const i of [0, 2, 3, 5, 7]) assert.deepEqual(wrappers[i]!.transactionsSummary, empty('USD'));
    for (const i of [1, 4, 6]) {
      assert.deepEqual(wrappers[i]!.transactionsSummary.totalOrderAmount, { currency: 'USD', value: '4.00' });
    }
  });

  test("a deleted contact's id gets zeros and nulls, though its orders keep it as customerId", async () => {
    const own = await ctx.site();
    const order = await imported(own, email(), '12.00');
    assert.equal((await summaryOf(own, order.customerId)).orderCount, 1);
    const gone = await own.call({ method: 'DELETE', url: `/v1/contacts/${order.customerId}` });
    assert.equal(gone.statusCode, 204, gone.body);
    const kept = await own.call({ method: 'GET', url: `/1.0/commerce/orders/${order.id}` });
    assert.equal(kept.json().customerId, order.customerId);
    assert.deepEqual(await summaryOf(own, order.customerId), empty('USD'));
  });

  test('1000 ids in one request; more, none, another groupBy or ids that are not strings: 400, nothing answered', async () => {
    const buyer = await imported(site, email(), '1.00');
    const many = Array.from({ length: 999 }, () => randomBytes(12).toString('hex'));
    const wrappers = await summaries(site, [...many, buyer.customerId]);
    assert.equal(wrappers.length, 1000);
    assert.equal(wrappers[999]!.transactionsSummary.orderCount, 1);

    const invalid = (
      res: Parameters<typeof assertError>[0],
      message: RegExp,
      subtype: string | null = 'INVALID_ARGUMENT',
    ) => assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);
    const ok = { contactIds: [buyer.customerId], groupBy: 'contactId' };
    invalid(
      await post(site, { ...ok, contactIds: [...many, buyer.customerId, 'x'] }),
      /^contactIds: at most 1000 items$/,
    );
    invalid(await post(site, { ...ok, contactIds: [] }), /^contactIds: at least 1 item/);
    invalid(await post(site, { ...ok, contactIds: buyer.customerId }), /^contactIds: must be an array$/);
    invalid(await post(site, { ...ok, contactIds: [1, 2] }), /^contactIds\[0\]: must be a string$/);
    invalid(
      await post(site, { ...ok, contactIds: [buyer.customerId, null] }),
      /^contactIds\[1\]: must be a string$/,
    );
    invalid(
      await post(site, { ...ok, contactIds: ['a'.repeat(101)] }),
      /^contactIds\[0\]: at most 100 characters$/,
    );
    invalid(await post(site, { ...ok, groupBy: 'email' }), /^groupBy: must be "contactId"$/);
    invalid(await post(site, { ...ok, groupBy: '' }), /^groupBy: must be "contactId"$/);
    invalid(await post(site, { contactIds: ok.contactIds }), /^groupBy: is required$/, 'MISSING_ARGUMENT');
    invalid(await post(site, { groupBy: 'contactId' }), /^contactIds: is required$/, 'MISSING_ARGUMENT');
    invalid(await post(site, undefined), /body/);
    invalid(
      await site.call({
        method: 'POST',
        url: SUMMARIES,
        headers: { 'content-type': 'application/json' },
        payload: '{"contactIds": [',
      }),
      /^body: not valid JSON$/,
      null,
    );
  });
});

describe('scopes', () => {
  test('a contacts scope reads summaries, as do the platform key names CONTACT and CONTACT_READONLY and an OAuth token with a profiles scope; others get 403', async () => {
    const buyer = await imported(site, email(), '3.00');
    const as = async (scopes: string) => {
      const { apiKey } = await createApiKey(ctx, { websiteId: site.websiteId, scopes });
      return withCredential(ctx, site, apiKey);
    };
    const payload = { contactIds: [buyer.customerId], groupBy: 'contactId' };
    for (const scopes of ['website.contacts.read', 'website.contacts', 'CONTACT_READONLY', 'CONTACT']) {
      const res = await post(await as(scopes), payload);
      assert.equal(res.statusCode, 200, `${scopes}: ${res.body}`);
      assert.equal(res.json().transactionsSummaryWrappers[0].transactionsSummary.orderCount, 1);
    }
    const app = await connectApp(ctx, ['website.profiles.read'], { app: await registerApp(ctx), site });
    const byToken = await app.call('POST', '/v1/analytics/transaction-summaries', payload);
    assert.equal(byToken.statusCode, 200, byToken.body);
    for (const scopes of [
      'website.profiles.read',
      'website.orders',
      'website.transactions.read',
      'DISCOUNTS',
    ]) {
      assertError(
        await post(await as(scopes), payload),
        403,
        'AUTHORIZATION_ERROR',
        'MISSING_SCOPE',
        /^this credential lacks the website\.contacts\.read scope$/,
      );
    }
  });
});
