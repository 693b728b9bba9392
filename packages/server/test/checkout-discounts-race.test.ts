import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ordersOf, seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { until } from './helpers/webhooks.ts';

/**
 * Shoppers racing for the last use of a limited discount: its uses are counted under the
 * discount's row lock, so it is never used more than maxUsesAllowed times, and the one who
 * comes too late is told, nothing charged, the cart kept.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

function waitingForLocks(count: number) {
  return until(
    () =>
      sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(ctx.db),
    (r) => Number(r.rows[0]!.n) === count,
    `${count} transaction(s) waiting for a lock`,
  );
}

async function limitedCode(site: Site, promoCode: string) {
  const res = await site.call({
    method: 'POST',
    url: '/v1/commerce/discounts',
    payload: {
      name: 'Last one',
      criteria: { type: 'ANY_ORDER' },
      template: { type: 'PERCENTAGE', percentage: 10 },
      trigger: { type: 'CODE', promoCode },
      validFrom: '2025-01-01T00:00:00Z',
      isLimitedUses: true,
      maxUsesAllowed: 1,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().discount.id as string;
}

describe('the last use of a discount', () => {
  test('two shoppers use a once-only code at once: one order with it, the other told and not charged', async () => {
    const site = await ctx.site();
    const id = await limitedCode(site, 'LAST1');
    const { medium } = await shirt(site, 5);
    const shoppers = [new Shopper(ctx, site.websiteId), new Shopper(ctx, site.websiteId)];
    for (const s of shoppers) seeOther(await s.add(medium, 1));
    // The discount's row held until both checkouts wait for it: each priced it usable before.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = ctx.db.transaction().execute(async (trx) => {
      await trx.selectFrom('discounts').select('id').where('id', '=', id).forUpdate().execute();
      await held;
    });
    const checkouts = Promise.all(
      shoppers.map((s, i) =>
        s.checkout({ promoCode: 'LAST1', shownTotal: '2300', email: `buyer${i}@example.com` }),
      ),
    );
    await waitingForLocks(2);
    release();
    await holder;
    const results = await checkouts;
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [303, 409]);
    const lost = results.find((r) => r.statusCode === 409)!;
    assert.match(text(lost), /no longer available, so your total is now \$25\.00, not \$23\.00/);
    const orders = await ordersOf(ctx, site.websiteId);
    assert.equal(orders.length, 1);
    const seen = (await site.call({ method: 'GET', url: `/v1/commerce/discounts/${id}` })).json().discount;
    assert.equal(seen.numberOfUses, 1);
    assert.ok(shoppers[results.indexOf(lost)]!.cookies.has('emporium_cart'), 'the cart is kept');
  });
});
