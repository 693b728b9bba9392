import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { cartOfShirts, createDiscount } from './helpers/checkout-discounts.ts';
import { ordersOf, seeOther } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * A canceled order did not stand, so the discount it used gets its use back: a limited code used
 * up by it can be redeemed again, and a once-per-customer code by the same buyer.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

const read = async (site: Site, id: string) =>
  (await site.call({ method: 'GET', url: `/v1/commerce/discounts/${id}` })).json().discount;

/** 2 × S on sale at 15.00 and 1 × M at 20.00 (50.00, 5.00 shipping), bought with the code. */
async function buyWith(site: Site, promoCode: string) {
  const { shopper } = await cartOfShirts(ctx, site);
  return shopper.checkout({ promoCode, shownTotal: '5000' });
}

/** A 10 % code with the limits given. */
async function codeDiscount(site: Site, promoCode: string, limits: Record<string, unknown>) {
  return (await createDiscount(site, { trigger: { type: 'CODE', promoCode }, ...limits })).id;
}

test('canceling the order that used up a limited code makes it ACTIVE again with its use back', async () => {
  const site = await ctx.site();
  const id = await codeDiscount(site, 'ONCEONLY', { isLimitedUses: true, maxUsesAllowed: 1 });
  seeOther(await buyWith(site, 'ONCEONLY'));
  const used = await read(site, id);
  assert.equal(used.numberOfUses, 1);
  assert.equal(used.status, 'EXPIRED');
  assert.ok(used.lastRedeemedAt);

  const [order] = await ordersOf(ctx, site.websiteId);
  await cancelOrder(ctx.api, site.websiteId, order!.id, { restock: true });
  const back = await read(site, id);
  assert.equal(back.numberOfUses, 0);
  assert.equal(back.status, 'ACTIVE');
  assert.equal(back.lastRedeemedAt, null);

  seeOther(await buyWith(site, 'ONCEONLY'));
  const orders = await ordersOf(ctx, site.websiteId);
  assert.equal(orders.length, 2);
  assert.equal((await read(site, id)).numberOfUses, 1);
});

test('a once-per-customer code is the buyer’s again after the cancel; uses of other orders stay', async () => {
  const site = await ctx.site();
  const id = await codeDiscount(site, 'WELCOME', { isOncePerCustomer: true });
  // Two buyers: Ada (the Shopper's default e-mail) and Grace.
  seeOther(await buyWith(site, 'WELCOME'));
  const { shopper: grace } = await cartOfShirts(ctx, site);
  seeOther(await grace.checkout({ promoCode: 'WELCOME', email: 'grace@example.com', shownTotal: '5000' }));
  const before = await read(site, id);
  assert.equal(before.numberOfUses, 2);

  const ada = (await ordersOf(ctx, site.websiteId)).find((o) => o.customer_email === 'ada@example.com');
  await cancelOrder(ctx.api, site.websiteId, ada!.id, { restock: true });
  const after = await read(site, id);
  assert.equal(after.numberOfUses, 1, "Grace's use stays");
  assert.equal(after.lastRedeemedAt, before.lastRedeemedAt, "Grace's use is the last one");

  const again = await buyWith(site, 'WELCOME');
  seeOther(again);
  assert.equal((await read(site, id)).numberOfUses, 2);
});
