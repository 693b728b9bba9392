import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import {
  awaitingFulfillmentQuery,
  dailyRevenueQuery,
  selectDailyRevenue,
} from '../src/analytics/dashboard.repo.ts';
import { siteDashboard } from '../src/analytics/dashboard.service.ts';
import { createOrder } from '../src/orders/orders.service.ts';
import type { OrderDraft } from '../src/orders/place-order.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { nativeDraft } from './helpers/orders.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** A site's dashboard on its page: products, orders to ship, the last 30 days' revenue. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(async () => {
  await ctx.close();
});

/** 02:00 on March 31 in New York (EDT, UTC-4); its 30 days start on March 2 (EST, UTC-5). */
const NOW = Date.parse('2026-03-31T06:00:00.000Z');
const FIRST_DAY_START = Date.parse('2026-03-02T05:00:00.000Z');

async function newYorkSite(): Promise<Site> {
  const site = await ctx.site();
  await ctx.db
    .updateTable('websites')
    .set({ time_zone: 'America/New_York' })
    .where('id', '=', site.websiteId)
    .execute();
  return site;
}

async function order(site: Site, placedOn: number, totalMinor: number, overrides: Partial<OrderDraft> = {}) {
  const draft = nativeDraft(new Date(placedOn), {
    lines: [
      {
        lineItemType: 'CUSTOM',
        variantId: null,
        title: 'Gift',
        quantity: 1,
        unitPricePaidMinor: totalMinor,
        customizations: null,
      },
    ],
    subtotalMinor: totalMinor,
    grandTotalMinor: totalMinor,
    ...overrides,
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

test('the figures: days of the site’s time zone on both sides of the 30-day edge, canceled and other sites’ orders left out', async () => {
  ctx.clock.advance(NOW - ctx.clock.now().getTime());
  const site = await newYorkSite();
  const other = await newYorkSite();
  for (const isVisible of [true, true, false]) {
    await createProduct(site, physical(site, { isVisible }));
  }
  await createProduct(other, physical(other));

  await order(site, FIRST_DAY_START, 1000); // the first minute of the first day: in
  await order(site, FIRST_DAY_START - 1, 2000); // a millisecond before: out, but still to ship
  await order(site, Date.parse('2026-03-31T05:00:00.000Z'), 700); // 01:00 today
  await order(site, Date.parse('2026-03-15T12:00:00.000Z'), 300, {
    fulfillmentStatus: 'FULFILLED',
    fulfilledOn: new Date(NOW),
  });
  await order(site, Date.parse('2026-03-15T13:00:00.000Z'), 10_000, { fulfillmentStatus: 'CANCELED' });
  await order(other, Date.parse('2026-03-15T12:00:00.000Z'), 50_000);

  const website = await ctx.db
    .selectFrom('websites')
    .selectAll()
    .where('id', '=', site.websiteId)
    .executeTakeFirstOrThrow();
  const dashboard = await siteDashboard(ctx.api, website);
  assert.deepEqual(dashboard.products, { visible: 2, hidden: 1 });
  assert.equal(dashboard.awaitingFulfillment, 3);
  const { revenue } = dashboard;
  assert.equal(revenue.days.length, 30);
  assert.deepEqual(revenue.days[0], { day: '2026-03-02', totalMinor: 1000, orders: 1 });
  assert.deepEqual(revenue.days[13], { day: '2026-03-15', totalMinor: 300, orders: 1 });
  assert.deepEqual(revenue.days[29], { day: '2026-03-31', totalMinor: 700, orders: 1 });
  assert.equal(revenue.days.filter((d) => d.orders > 0).length, 3);
  assert.equal(revenue.totalMinor, 2000);
  assert.equal(revenue.orders, 3);
  assert.equal(revenue.currency, 'USD');

  const browser = await signedInOwner(ctx, site);
  const res = await browser.get(`/sites/${site.websiteId}`);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.body;
  assert.match(body, new RegExp(`<a href="/sites/${site.websiteId}/products">Products</a>`));
  assert.match(body, /<strong>2<\/strong> visible · <strong>1<\/strong> hidden/);
  assert.match(
    body,
    new RegExp(
      `<a href="/sites/${site.websiteId}/orders\\?status=PENDING">3 orders awaiting fulfillment</a>`,
    ),
  );
  assert.match(body, /<strong>20\.00 USD<\/strong> from 3\s+orders/);
  assert.match(body, /<svg[^>]*role="img"[^>]*aria-labelledby="revenue-title revenue-desc"/);
  assert.match(body, /<title id="revenue-title">Revenue of the last 30 days<\/title>/);
  assert.match(body, /<title>2026-03-02: 10\.00 USD, 1 order<\/title>/);
  assert.match(body, /<title>2026-03-16: 0\.00 USD, 0 orders<\/title>/);
  assert.doesNotMatch(body, /<title>2026-03-01/, 'the day before the window is not drawn');
  assert.match(body, /<th scope="row">2026-03-31<\/th>\s*<td>1<\/td>\s*<td>7\.00 USD<\/td>/);
  assert.match(body, /<h2>Connected apps<\/h2>/, 'the connected apps are still there');
});

test('the sums read only the website’s index entries, never every order', async () => {
  const site = await newYorkSite();
  const days = { first: '2026-03-02', last: '2026-03-31', timeZone: 'America/New_York' };
  assert.deepEqual(await selectDailyRevenue(ctx.db, site.websiteId, days), []);
  // With sequential scans priced out, a bound the index cannot use would still show as a Filter.
  const plans = await ctx.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    const revenue = await sql<{
      'QUERY PLAN': string;
    }>`EXPLAIN ${dailyRevenueQuery(site.websiteId, days)}`.execute(trx);
    const awaiting = await awaitingFulfillmentQuery(trx, site.websiteId).explain();
    return {
      revenue: revenue.rows.map((r) => r['QUERY PLAN']).join('\n'),
      awaiting: awaiting.map((r) => String(r['QUERY PLAN'])).join('\n'),
    };
  });
  assert.match(plans.revenue, /orders_placed_idx/);
  assert.match(plans.revenue, /Index Cond: \(\(website_id = .*placed_on >= .*placed_on < /);
  assert.match(plans.awaiting, /Index (Only )?Scan using orders_\w+_idx/);
  assert.match(plans.awaiting, /Index Cond: \(website_id = /);
  assert.doesNotMatch(`${plans.revenue}\n${plans.awaiting}`, /Seq Scan/);
});
