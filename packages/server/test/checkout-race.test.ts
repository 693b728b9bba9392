import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ordersOf, seeOther, Shopper, shirt, stockOf, text } from './helpers/shopper.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';
import { until } from './helpers/webhooks.ts';

/**
 * Shoppers racing for the last items: the stock is taken under the variants' row locks, so it
 * never goes below zero, and the one who comes too late is told what sold out, the cart kept.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

/** Resolves once `count` transactions of the test's database wait for a lock. */
function waitingForLocks(count: number) {
  return until(
    () =>
      sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(ctx.db),
    (r) => Number(r.rows[0]!.n) === count,
    `${count} transaction(s) waiting for a lock`,
  );
}

describe('the last items', () => {
  test('two shoppers buy the last one at once: one order, the other is told it is sold out', async () => {
    const site = await ctx.site();
    const { small } = await shirt(site, 1);
    const first = new Shopper(ctx, site.websiteId);
    const second = new Shopper(ctx, site.websiteId);
    seeOther(await first.add(small, 1));
    seeOther(await second.add(small, 1));

    const results = await Promise.all([first.checkout(), second.checkout({ email: 'grace@example.com' })]);
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [303, 409], results.map((r) => r.statusCode).join());
    const lost = results.find((r) => r.statusCode === 409)!;
    assert.match(text(lost), /Sorry, Linen shirt \(S\) is sold out\./);
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 1);
    assert.equal(await stockOf(site, small), 0);
    const loser = results[0] === lost ? first : second;
    assert.ok(loser.cookies.has('emporium_cart'), 'the loser keeps the cart');
  });

  test('the race decided under the row locks: both passed the stock check, one order, the other told it is sold out', async () => {
    const site = await ctx.site();
    const { product, small } = await shirt(site, 1);
    const shoppers = [new Shopper(ctx, site.websiteId), new Shopper(ctx, site.websiteId)];
    for (const s of shoppers) seeOther(await s.add(small, 1));
    // The product's row held until both checkouts wait for it: each read one in stock before.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = ctx.db.transaction().execute(async (trx) => {
      await trx.selectFrom('products').select('id').where('id', '=', product.id).forUpdate().execute();
      await held;
    });
    const checkouts = Promise.all(shoppers.map((s) => s.checkout()));
    await waitingForLocks(2);
    release();
    await holder;
    const results = await checkouts;
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [303, 409]);
    assert.match(text(results.find((r) => r.statusCode === 409)!), /Sorry, Linen shirt \(S\) is sold out\./);
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 1);
    assert.equal(await stockOf(site, small), 0);
  });

  test('an item removed while the checkout waits for its lock: the shopper is told, in the cart’s terms', async () => {
    const site = await ctx.site();
    const { product, small, medium } = await shirt(site, 3);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 1));
    seeOther(await shopper.add(medium, 1));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = ctx.db.transaction().execute(async (trx) => {
      await trx.selectFrom('products').select('id').where('id', '=', product.id).forUpdate().execute();
      await held;
      await trx.deleteFrom('variants').where('id', '=', small).execute();
    });
    const checkout = shopper.checkout();
    await waitingForLocks(1);
    release();
    await holder;
    const res = await checkout;
    assert.equal(res.statusCode, 409);
    assert.match(text(res), /An item can no longer be bought here and left your cart\./);
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 0);
    assert.equal(await stockOf(site, medium), 10, 'nothing was taken');
    assert.match(text(await shopper.get(`${shopper.root}/cart`)), /Size: M .*Subtotal \$20\.00/);
  });

  test('an item with fewer left than the cart holds: the shopper is told how many are left', async () => {
    const site = await ctx.site();
    const more = await shirt(site, 2);
    const third = new Shopper(ctx, site.websiteId);
    seeOther(await third.add(more.small, 2));
    await site.call({
      method: 'POST',
      url: '/1.0/commerce/inventory/adjustments',
      headers: { 'idempotency-key': `race-${more.small}` },
      payload: { decrementOperations: [{ variantId: more.small, quantity: 1 }] },
    });
    const few = await third.checkout();
    assert.equal(few.statusCode, 409);
    assert.match(text(few), /Sorry, only 1 of Linen shirt \(S\) left/);
  });
});
