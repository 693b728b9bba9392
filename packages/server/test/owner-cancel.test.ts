import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { createOrder } from '../src/orders/orders.service.ts';
import type { DraftLine, OrderDraft } from '../src/orders/place-order.ts';
import { createProduct, money, physical, variant } from './helpers/factories.ts';
import { apiOrder, documentOf, nativeDraft } from './helpers/orders.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/** Canceling an order from its page: the rules, the restock, the notification, the refusals. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', queue: true });
});
after(() => ctx.close());

const START = Date.parse('2026-03-01T09:00:00.000Z');

/** A product with a variant of `stock` (or unlimited stock); returns the variant's id. */
async function stocked(site: Site, stock: number | 'unlimited', sku: string): Promise<string> {
  const product = await createProduct(
    site,
    physical(site, {
      name: `Mug ${sku}`,
      variants: [
        variant(sku, {
          pricing: { basePrice: money('18.00') },
          stock:
            stock === 'unlimited' ? { quantity: 0, unlimited: true } : { quantity: stock, unlimited: false },
        }),
      ],
    }),
  );
  return product.variants[0].id;
}

const catalogLine = (variantId: string, quantity: number): DraftLine => ({
  lineItemType: 'PHYSICAL_PRODUCT',
  variantId,
  title: null,
  quantity,
  unitPricePaidMinor: 1800,
  customizations: null,
});

/** An order of these lines (stock taken), placed now. */
async function order(site: Site, lines: DraftLine[], overrides: Partial<OrderDraft> = {}) {
  const subtotal = lines.reduce((sum, l) => sum + l.quantity * l.unitPricePaidMinor, 0);
  const draft = nativeDraft(new Date(START), {
    lines,
    subtotalMinor: subtotal,
    grandTotalMinor: subtotal,
    customerEmail: 'ada@example.com',
    ...overrides,
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

const stockOf = async (site: Site, variantId: string) => {
  const res = await site.call({ method: 'GET', url: `/1.0/commerce/inventory/${variantId}` });
  assert.equal(res.statusCode, 200, res.body);
  const [item] = res.json().inventory;
  return item.isUnlimited ? 'unlimited' : item.quantity;
};

const deliveries = (site: Site) =>
  ctx.db
    .selectFrom('webhook_deliveries')
    .select(['topic', 'body'])
    .where('website_id', '=', site.websiteId)
    .orderBy('created_on')
    .execute()
    .then((rows) => rows.map((d) => [d.topic, JSON.parse(d.body).data]));

/** A site whose app listens to order and product updates; the site's owner signed in. */
async function subscribedSite() {
  const connected = await connectApp(ctx, ['website.orders', 'website.products.read']);
  const subscribed = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: 'https://hooks.example.com/orders',
    topics: ['order.update', 'product.update'],
  });
  assert.equal(subscribed.statusCode, 201, subscribed.body);
  return { site: connected.site, browser: await signedInOwner(ctx, connected.site) };
}

describe('canceling from the order page', () => {
  test('a PENDING order: CANCELED, stock back, document voided, both re-stamped, order.update CANCELED queued; money untouched', async () => {
    const { site, browser } = await subscribedSite();
    const mug = await stocked(site, 5, 'MUG-5');
    const endless = await stocked(site, 'unlimited', 'MUG-INF');
    const placed = await order(site, [catalogLine(mug, 2), catalogLine(endless, 1), catalogLine(mug, 1)]);
    assert.equal(await stockOf(site, mug), 2);
    const before = await apiOrder(site, placed.id);
    const documentBefore = await documentOf(site, placed.id);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    const page = await browser.get(url);
    assert.match(page.body, /<h2 id="cancel">Cancel the order<\/h2>/);
    assert.match(page.body, /name="restock" value="1" checked/, 'restock is ticked by default');
    assert.match(page.body, /put 4 items back in stock/);
    assert.match(page.body, /name="confirm" value="yes" required/);

    const posted = await browser.post(`${url}/cancel`, { csrf: browser.csrf, restock: '1', confirm: 'yes' });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal(posted.headers.location, `${url}?restocked=1`);
    const shown = await browser.get(String(posted.headers.location));
    assert.match(shown.body, /role="status">The order was canceled and its items put back in stock/);
    assert.match(shown.body, /Fulfillment:\s*<strong>Canceled<\/strong>/);
    assert.doesNotMatch(shown.body, /action="[^"]*\/(cancel|fulfillments)"/, 'no forms on a canceled order');

    const after = await apiOrder(site, placed.id);
    assert.equal(after.fulfillmentStatus, 'CANCELED');
    assert.ok(after.modifiedOn > before.modifiedOn, 'modifiedOn moves on');
    assert.equal(after.paymentState, before.paymentState);
    assert.deepEqual(after.refundedTotal, before.refundedTotal);
    assert.deepEqual(after.grandTotal, before.grandTotal);
    assert.equal(await stockOf(site, mug), 5);
    assert.equal(await stockOf(site, endless), 'unlimited');
    const document = await documentOf(site, placed.id);
    assert.equal(document.voided, true);
    assert.ok(document.modifiedOn > documentBefore.modifiedOn);
    assert.deepEqual(document.total, documentBefore.total);

    const canceled = await browser.get(`/sites/${site.websiteId}/orders?status=CANCELED`);
    assert.match(canceled.body, new RegExp(`/orders/${placed.id}"`));
    const queued = await deliveries(site);
    assert.deepEqual(
      queued.filter(([topic]) => topic === 'order.update'),
      [['order.update', { orderId: placed.id, update: 'CANCELED' }]],
    );
    const products = queued.filter(([topic]) => topic === 'product.update');
    // The mug's product when the order took its stock and when the cancel put it back; the
    // unlimited one's stock never changed.
    assert.equal(products.length, 2);
  });

  test('with "Restock items" unticked the stock stays as it is', async () => {
    const { site, browser } = await subscribedSite();
    const mug = await stocked(site, 5, 'MUG-KEEP');
    const placed = await order(site, [catalogLine(mug, 2)]);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    await browser.get(url);
    const posted = await browser.post(`${url}/cancel`, { csrf: browser.csrf, confirm: 'yes' });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal(posted.headers.location, `${url}?canceled=1`);
    assert.equal((await apiOrder(site, placed.id)).fulfillmentStatus, 'CANCELED');
    assert.equal(await stockOf(site, mug), 3);
    const products = (await deliveries(site)).filter(([topic]) => topic === 'product.update');
    assert.equal(products.length, 1, 'only the order took stock');
  });

  test('an order that took no stock (an import without DEDUCT) is canceled without restocking, whatever is sent', async () => {
    const { site, browser } = await subscribedSite();
    const mug = await stocked(site, 5, 'MUG-SKIP');
    const placed = await order(site, [catalogLine(mug, 2)], { deductStock: false });
    assert.equal(await stockOf(site, mug), 5);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    const page = await browser.get(url);
    assert.doesNotMatch(page.body, /name="restock"/, 'no restock is offered');
    assert.match(page.body, /took no stock when it was placed/);
    const posted = await browser.post(`${url}/cancel`, { csrf: browser.csrf, confirm: 'yes', restock: '1' });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal((await apiOrder(site, placed.id)).fulfillmentStatus, 'CANCELED');
    assert.equal(await stockOf(site, mug), 5, 'nothing put back that never left');
  });

  test('refused, with the reason on the page and nothing changed: FULFILLED, already CANCELED, unconfirmed, no CSRF', async () => {
    const { site, browser } = await subscribedSite();
    const mug = await stocked(site, 10, 'MUG-10');
    const fulfilled = await order(site, [catalogLine(mug, 1)], {
      fulfillmentStatus: 'FULFILLED',
      fulfilledOn: new Date(START),
    });
    const pending = await order(site, [catalogLine(mug, 2)]);
    const fulfilledUrl = `/sites/${site.websiteId}/orders/${fulfilled.id}`;
    const fulfilledPage = await browser.get(fulfilledUrl);
    assert.match(fulfilledPage.body, /A fulfilled order has shipped and cannot be canceled/);
    assert.doesNotMatch(fulfilledPage.body, /name="confirm"/);
    const csrf = browser.csrf;
    const snapshot = async () => ({
      fulfilled: await apiOrder(site, fulfilled.id),
      pending: await apiOrder(site, pending.id),
      stock: await stockOf(site, mug),
      deliveries: await deliveries(site),
    });
    const start = await snapshot();
    assert.equal(start.stock, 7);

    const shipped = await browser.post(`${fulfilledUrl}/cancel`, { csrf, restock: '1', confirm: 'yes' });
    assert.equal(shipped.statusCode, 400);
    assert.match(shipped.body, /role="alert">order [0-9a-f]{24} is FULFILLED and cannot be canceled/);

    const pendingUrl = `/sites/${site.websiteId}/orders/${pending.id}`;
    const unconfirmed = await browser.post(`${pendingUrl}/cancel`, { csrf, restock: '1' });
    assert.equal(unconfirmed.statusCode, 400);
    assert.match(unconfirmed.body, /role="alert">Tick &quot;Yes, cancel order&quot; to confirm/);
    assert.match(unconfirmed.body, /name="restock" value="1" checked/, 'the form keeps its ticks');
    const unticked = await browser.post(`${pendingUrl}/cancel`, { csrf, confirm: 'no' });
    assert.equal(unticked.statusCode, 400);
    assert.doesNotMatch(unticked.body, /name="restock" value="1" checked/);
    const noCsrf = await browser.post(`${pendingUrl}/cancel`, { restock: '1', confirm: 'yes' });
    assert.equal(noCsrf.statusCode, 403);
    assert.deepEqual(await snapshot(), start, 'the refusals changed nothing');

    const first = await browser.post(`${pendingUrl}/cancel`, { csrf, restock: '1', confirm: 'yes' });
    assert.equal(first.statusCode, 303, first.body);
    const afterFirst = await snapshot();
    assert.equal(afterFirst.stock, 9);
    const again = await browser.post(`${pendingUrl}/cancel`, { csrf, restock: '1', confirm: 'yes' });
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /is already CANCELED/);
    assert.deepEqual(await snapshot(), afterFirst, 'a second cancel restocks nothing and notifies no one');
  });

  test('another owner’s order is 404 and stays PENDING', async () => {
    const site = await ctx.site();
    const placed = await order(site, [catalogLine(await stocked(site, 3, 'MUG-3'), 1)]);
    const stranger = await ctx.site();
    const browser = await signedInOwner(ctx, stranger);
    await browser.get(`/sites/${stranger.websiteId}/orders`);
    const csrf = browser.csrf;
    for (const url of [
      `/sites/${site.websiteId}/orders/${placed.id}/cancel`,
      `/sites/${stranger.websiteId}/orders/${placed.id}/cancel`,
    ]) {
      assert.equal((await browser.post(url, { csrf, confirm: 'yes' })).statusCode, 404);
    }
    assert.equal((await apiOrder(site, placed.id)).fulfillmentStatus, 'PENDING');
  });
});

describe('cancelOrder', () => {
  test('an order another transaction holds is a 409 CONCURRENT_MODIFICATION at once, and stays as it was', async () => {
    const site = await ctx.site();
    const mug = await stocked(site, 4, 'MUG-4');
    const placed = await order(site, [catalogLine(mug, 1)]);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = ctx.db.transaction().execute(async (trx) => {
      await trx.selectFrom('orders').select('id').where('id', '=', placed.id).forUpdate().execute();
      locked();
      await held;
    });
    await lockTaken;
    await assert.rejects(cancelOrder(ctx.api, site.websiteId, placed.id, { restock: true }), {
      name: 'Conflict',
      subtype: 'CONCURRENT_MODIFICATION',
    });
    release();
    await holder;
    assert.equal((await apiOrder(site, placed.id)).fulfillmentStatus, 'PENDING');
    assert.equal(await stockOf(site, mug), 3);
  });

  test('a variant deleted since the order is skipped; the rest is restocked', async () => {
    const site = await ctx.site();
    const gone = await stocked(site, 2, 'MUG-GONE');
    const kept = await stocked(site, 2, 'MUG-KEPT');
    const placed = await order(site, [catalogLine(gone, 1), catalogLine(kept, 2)]);
    const product = (await apiOrder(site, placed.id)).lineItems[0].productId;
    const deleted = await site.call({ method: 'DELETE', url: `/1.1/commerce/products/${product}` });
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.deepEqual(await cancelOrder(ctx.api, site.websiteId, placed.id, { restock: true }), {
      restocked: 2,
      refundedMinor: 0,
    });
    assert.equal(await stockOf(site, kept), 2);
  });

  test("the buyer's profile stops counting a canceled order, and says what transaction summaries say", async () => {
    const site = await ctx.site();
    const mug = await stocked(site, 10, 'MUG-COUNT');
    const first = await order(site, [catalogLine(mug, 1)], { placedOn: new Date(START) });
    await order(site, [catalogLine(mug, 2)], { placedOn: new Date(START + 86_400_000) });
    await cancelOrder(ctx.api, site.websiteId, (await order(site, [catalogLine(mug, 3)])).id, {
      restock: true,
    });
    const contactId = (await apiOrder(site, first.id)).customerId;
    const profile = await site.call({ method: 'GET', url: `/1.0/profiles/${contactId}` });
    const summary = profile.json().profiles[0].transactionsSummary;
    assert.equal(summary.orderCount, 2);
    assert.deepEqual(summary.totalOrderAmount, { currency: 'USD', value: '54.00' });
    const summaries = await site.call({
      method: 'POST',
      url: '/v1/analytics/transaction-summaries',
      payload: { contactIds: [contactId], groupBy: 'contactId' },
    });
    assert.equal(summaries.statusCode, 200, summaries.body);
    assert.deepEqual(summaries.json().transactionsSummaryWrappers[0].transactionsSummary, summary);
  });

  test('an id that is not an order id is a 400; an unknown one a 404', async () => {
    const site = await ctx.site();
    await assert.rejects(cancelOrder(ctx.api, site.websiteId, 'nope', { restock: true }), { status: 400 });
    await assert.rejects(cancelOrder(ctx.api, site.websiteId, 'a'.repeat(24), { restock: true }), {
      status: 404,
    });
  });
});
