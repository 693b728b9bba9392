import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { siteDashboard } from '../src/analytics/dashboard.service.ts';
import { sweepDeliveries } from '../src/webhooks/delivery-sweep.ts';
import { cartOfShirts, createDiscount, DISCOUNTS } from './helpers/checkout-discounts.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { registerApp } from './helpers/oauth.ts';
import { created, customLine, importBody } from './helpers/orders.ts';
import { ordersOf, seeOther, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/**
 * A website's records take the website's time (shared/clock.ts): with one site's clock 48 hours
 * ahead and another site of the same app on the service's time, what each site writes, notifies
 * and compares with "now" reads its own clock. The service's clock is the test clock, which
 * moves 1 ms at each reading: a time written during a call lies between the readings around it.
 */

const HOUR = 3600_000;
const SHIFT = 48 * HOUR;

let ctx: TestContext;
/** The site whose clock runs SHIFT ahead, and one of the same app on the service's time. */
let shifted: Site;
let plain: Site;

before(async () => {
  ctx = await testApp({ logLevel: 'silent', queue: true });
  const app = await registerApp(ctx);
  for (const site of [(shifted = await ctx.site()), (plain = await ctx.site())]) {
    const connected = await connectApp(ctx, ['website.products', 'website.orders'], { app, site });
    const res = await connected.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: 'https://hooks.example.com/emporium',
      topics: ['order.create', 'product.create'],
    });
    assert.equal(res.statusCode, 201, res.body);
  }
  // As a test moving the site's clock does: the stored shift, which queries read, and the
  // instance's in-memory one, which now(websiteId) reads.
  await ctx.db
    .updateTable('websites')
    .set({ clock_shift_ms: SHIFT })
    .where('id', '=', shifted.websiteId)
    .execute();
  ctx.api.clock.setShift(shifted.websiteId, SHIFT);
});
after(() => ctx.close());

/** The service's time, in ms: each reading 1 ms after the last. */
const serviceNow = () => ctx.clock.now().getTime();

/** The time lies within [from, to] (ms), shifted by `shift`. */
function assertBetween(time: string | Date, from: number, to: number, shift: number, what: string) {
  const ms = new Date(time).getTime();
  assert.ok(
    ms >= from + shift && ms <= to + shift,
    `${what}: ${new Date(ms).toISOString()} is not within ${new Date(from + shift).toISOString()} .. ${new Date(to + shift).toISOString()}`,
  );
}

/** The site's notifications of a topic, as queued: the body sent and the delivery's times. */
async function notifications(site: Site, topic: string) {
  const rows = await ctx.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('website_id', '=', site.websiteId)
    .where('topic', '=', topic)
    .orderBy('created_on')
    .execute();
  return rows.map((row) => ({ ...row, json: JSON.parse(row.body) as { createdOn: string; data: object } }));
}

describe('times written', () => {
  test('a product created on the shifted site has createdOn and modifiedOn 48 h ahead of the other site’s', async () => {
    const from = serviceNow();
    const other = await createProduct(plain, physical(plain));
    const ahead = await createProduct(shifted, physical(shifted));
    const to = serviceNow();
    for (const field of ['createdOn', 'modifiedOn'] as const) {
      assertBetween(other[field], from, to, 0, `the other site's ${field}`);
      assertBetween(ahead[field], from, to, SHIFT, `the shifted site's ${field}`);
    }
    const [notice] = (await notifications(shifted, 'product.create')).filter(
      (n) => (n.json.data as { productId: string }).productId === ahead.id,
    );
    assertBetween(notice!.json.createdOn, from, to, SHIFT, 'its product.create createdOn');
  });

  test('an imported order is stamped in site time, and its order.create notification is created and retried in site time', async () => {
    const from = serviceNow();
    const order = await created(shifted, importBody([customLine('Poster')]));
    const to = serviceNow();
    assertBetween(order.modifiedOn, from, to, SHIFT, 'the order’s modifiedOn');
    const docs = await shifted.call({ method: 'GET', url: `/1.0/commerce/transactions?orderId=${order.id}` });
    assert.equal(docs.statusCode, 200, docs.body);
    assertBetween(
      docs.json().documents[0].createdOn,
      from,
      to,
      SHIFT,
      'its transaction document’s createdOn',
    );

    const [notice] = (await notifications(shifted, 'order.create')).filter(
      (n) => (n.json.data as { orderId: string }).orderId === order.id,
    );
    assert.ok(notice, 'order.create was queued');
    assertBetween(notice.json.createdOn, from, to, SHIFT, 'the notification’s createdOn');
    assertBetween(notice.created_on, from, to, SHIFT, 'the delivery’s created_on');
    assertBetween(notice.retry_until, from, to, SHIFT + 48 * HOUR, 'its last retry');
  });

  test('a notification of the shifted site is due in its time, and queued again 15 minutes on when its job was lost', async () => {
    const from = serviceNow();
    await created(shifted, importBody([customLine('Lost')]));
    const to = serviceNow();
    const [notice] = (await notifications(shifted, 'order.create')).slice(-1);
    assertBetween(notice!.next_attempt_at!, from, to, SHIFT, 'its first attempt');
    await sql`DELETE FROM pgboss.job WHERE name = 'webhook.deliver' AND data->>'deliveryId' = ${notice!.id}`.execute(
      ctx.db,
    );
    const requeued = async () =>
      Number(
        (
          await sql<{ n: string }>`SELECT count(*) AS n FROM pgboss.job
            WHERE name = 'webhook.deliver' AND data->>'deliveryId' = ${notice!.id}`.execute(ctx.db)
        ).rows[0]!.n,
      );
    await sweepDeliveries(ctx.api);
    assert.equal(await requeued(), 0, 'not stalled yet');
    ctx.clock.advance(16 * 60_000);
    await sweepDeliveries(ctx.api);
    assert.equal(await requeued(), 1, 'stalled by its site’s time: queued again');
  });
});

describe('comparisons with now', () => {
  test('a discount valid from 24 h after the service’s now applies at the shifted site’s checkout, not at the other’s', async () => {
    const validFrom = new Date(serviceNow() + 24 * HOUR).toISOString();
    for (const [site, expected, status] of [
      [shifted, true, 'ACTIVE'],
      [plain, false, 'SCHEDULED'],
    ] as const) {
      const discount = await createDiscount(site, { name: 'Tomorrow 10 % off', validFrom });
      const seen = await site.call({ method: 'GET', url: `${DISCOUNTS}/${discount.id}` });
      assert.equal(seen.json().discount.status, status);
      const { shopper } = await cartOfShirts(ctx, site);
      const page = await shopper.get(`/s/${site.websiteId}/checkout`);
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(/Discount: Tomorrow 10 % off\s+−\$5\.00/.test(text(page)), expected, text(page));
    }
  });

  test('a modifiedAfter/modifiedBefore window ending at the shifted site’s now finds its new product, and is closed', async () => {
    const product = await createProduct(shifted, physical(shifted, { name: 'Synced' }));
    const siteNow = ctx.api.clock.now(shifted.websiteId).getTime();
    const window = async (after: number, before: number) => {
      const query = new URLSearchParams({
        modifiedAfter: new Date(after).toISOString(),
        modifiedBefore: new Date(before).toISOString(),
      });
      const res = await shifted.call({ method: 'GET', url: `/1.1/commerce/products?${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().products as { id: string; modifiedOn: string }[]).map((p) => p.id);
    };
    assert.ok((await window(siteNow - HOUR, siteNow)).includes(product.id));

    // A window ending just ahead of the site's time is closed: a change made next sorts after it.
    const end = ctx.api.clock.now(shifted.websiteId).getTime() + 900;
    await window(siteNow, end);
    const renamed = await shifted.call({
      method: 'POST',
      url: `/1.1/commerce/products/${product.id}`,
      payload: { name: 'Synced again' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.ok(
      Date.parse(renamed.json().modifiedOn) > end,
      `${renamed.json().modifiedOn} sorts after the window`,
    );
  });

  test('transaction summaries and the owner’s dashboard count an order placed at the shifted site’s checkout in its time', async () => {
    const website = await ctx.db
      .selectFrom('websites')
      .selectAll()
      .where('id', '=', shifted.websiteId)
      .executeTakeFirstOrThrow();
    const before = await siteDashboard(ctx.api, website);
    const { shopper } = await cartOfShirts(ctx, shifted);
    const from = serviceNow();
    seeOther(await shopper.checkout({ email: 'summary@example.com' }));
    const to = serviceNow();
    const [row] = (await ordersOf(ctx, shifted.websiteId)).filter((o) => o.channel === 'web');
    assertBetween(row!.placed_on, from, to, SHIFT, 'the order’s placing time');

    const res = await shifted.call({
      method: 'POST',
      url: '/v1/analytics/transaction-summaries',
      payload: { contactIds: [row!.customer_id], groupBy: 'contactId' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const summary = res.json().transactionsSummaryWrappers[0].transactionsSummary;
    assert.equal(summary.orderCount, 1);
    assertBetween(summary.lastOrderSubmittedOn, from, to, SHIFT, 'lastOrderSubmittedOn');

    // Today is the site's: the order's day is the last of its 30, and counts.
    const after = await siteDashboard(ctx.api, website);
    const today = new Date(to + SHIFT).toISOString().slice(0, 10);
    assert.equal(after.revenue.days.at(-1)!.day, today);
    assert.equal(after.revenue.orders, before.revenue.orders + 1);
  });
});
