import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOrder } from '../src/orders/orders.service.ts';
import type { OrderDraft } from '../src/orders/place-order.ts';
import { nativeDraft } from './helpers/orders.ts';
import { listedOrders, olderLink, signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** The owner's order list filters: placing days, order number or e-mail, with the status and paging. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(async () => {
  await ctx.close();
});

const HOUR = 3600_000;
const START = Date.parse('2026-03-01T09:00:00.000Z');

/** An order of Emporium's own, placed `hours` after START. */
async function order(site: Site, hours: number, overrides: Partial<OrderDraft> = {}) {
  const draft = nativeDraft(new Date(START + hours * HOUR), overrides);
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

test('filters by placing days in the site’s time zone, order number and e-mail; paging keeps the filters', async () => {
  const site = await ctx.site();
  await ctx.db
    .updateTable('websites')
    .set({ time_zone: 'America/New_York' })
    .where('id', '=', site.websiteId)
    .execute();
  // START is 04:00 on March 1 in New York: hour -5 is still February 28 there.
  const feb28 = await order(site, -5, { customerEmail: 'Ada.Lovelace@Example.com' });
  const mar1 = await order(site, 0, { customerEmail: 'grace@example.com' });
  const mar1Late = await order(site, 19, { customerEmail: 'ada_l@example.org' });
  const mar2 = await order(site, 20, { customerEmail: 'ada@example.com', fulfillmentStatus: 'CANCELED' });
  const browser = await signedInOwner(ctx, site);
  const ids = async (query: string) => {
    const res = await browser.get(`/sites/${site.websiteId}/orders${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return listedOrders(res.body, site.websiteId);
  };
  assert.deepEqual(await ids('?from=2026-03-01&to=2026-03-01'), [mar1Late.id, mar1.id]);
  assert.deepEqual(await ids('?to=2026-02-28'), [feb28.id]);
  assert.deepEqual(await ids('?from=2026-03-02'), [mar2.id]);
  assert.deepEqual(await ids('?from=2026-03-01&status=CANCELED'), [mar2.id]);
  assert.deepEqual(await ids('?status=canceled'), [mar2.id], 'a status in any case');
  assert.match(browser.lastPage, /aria-current="page"><strong>Canceled</);
  assert.deepEqual(await ids(`?q=${mar1.orderNumber}`), [mar1.id]);
  assert.deepEqual(await ids(`?q=%23${mar2.orderNumber}`), [mar2.id]);
  assert.deepEqual(await ids('?q=ADA'), [mar2.id, mar1Late.id, feb28.id], 'any case, any part');
  assert.deepEqual(await ids('?q=ada_'), [mar1Late.id], 'a LIKE wildcard is searched for as text');
  assert.deepEqual(await ids('?q=nobody'), []);
  assert.match(browser.lastPage, /No order matches these filters/);
  assert.match(browser.lastPage, /name="q" value="nobody"/, 'the form keeps what was searched');

  for (const [query, message] of [
    ['?from=2026-02-30', /Placed from: not a date/],
    ['?to=yesterday', /Placed until: not a date/],
    ['?from=0000-01-01', /Placed from: not a date/],
    ['?from=2026-03-02&to=2026-03-01', /must be on or before/],
    [`?q=${'x'.repeat(201)}`, /Search: at most 200 characters/],
  ] as const) {
    const res = await browser.get(`/sites/${site.websiteId}/orders${query}`);
    assert.equal(res.statusCode, 400, query);
    assert.match(res.body, message);
    assert.match(res.body, /role="alert"/);
    assert.match(res.body, /<form class="stack" method="get"/, 'the filters stay there to correct');
  }

  const many = await ctx.site();
  for (let i = 0; i < 52; i++) await order(many, i, { customerEmail: i % 2 ? 'odd@example.com' : null });
  const manyOwner = await signedInOwner(ctx, many);
  const first = await manyOwner.get(`/sites/${many.websiteId}/orders?q=odd%40example.com&from=2026-03-01`);
  assert.equal(listedOrders(first.body, many.websiteId).length, 26);
  assert.equal(olderLink(first.body), undefined, 'one page of the filtered list');
  const all = await manyOwner.get(`/sites/${many.websiteId}/orders?from=2026-03-01`);
  const older = olderLink(all.body);
  assert.ok(older);
  assert.match(older, /from=2026-03-01/);
  const second = await manyOwner.get(older);
  assert.equal(listedOrders(second.body, many.websiteId).length, 2);
});
