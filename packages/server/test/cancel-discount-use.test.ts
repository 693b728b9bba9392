import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cancelOrder } from '../src/commerce/cancel-order.ts';
import { ordersOf, seeOther, Shopper, shirt } from './helpers/shopper.ts';
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

async function codeDiscount(site: Site, promoCode: string, limits: Record<string, unknown>) {
  const res = await site.call({
    method: 'POST',
    url: '/v1/commerce/discounts',
    payload: {
      name: '10 % off',
      criteria: { type: 'ANY_ORDER' },
      template: { type: 'PERCENTAGE', percentage: 10 },
      trigger: { type: 'CODE', promoCode },
      validFrom: '2025-01-01T00:00:00Z',
      ...limits,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().discount.id as string;
}

const read = async (site: Site, id: string) =>
  (await site.call({ method: 'GET', url: `/v1/commerce/discounts/${id}` })).json().discount;

/** 2 × S on sale at 15.00 and 1 × M at 20.00 (50.00, 5.00 shipping), bought with the code. */
async function buyWith(site: Site, promoCode: string, variants: { small: string; medium: string }) {
  const shopper = new Shopper(ctx, site.websiteId);
  seeOther(await shopper.add(variants.small, 2));
  seeOther(await shopper.add(variants.medium, 1));
  return shopper.checkout({ promoCode, shownTotal: '5000' });
}

test('canceling the order that used up a limited code makes it ACTIVE again with its use back', async () => {
  const site = await ctx.site();
  const variants = await shirt(site, 10);
  const id = await codeDiscount(site, 'ONCEONLY', { isLimitedUses: true, maxUsesAllowed: 1 });
  seeOther(await buyWith(site, 'ONCEONLY', variants));
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

  seeOther(await buyWith(site, 'ONCEONLY', variants));
  const orders = await ordersOf(ctx, site.websiteId);
  assert.equal(orders.length, 2);
  assert.equal((await read(site, id)).numberOfUses, 1);
});

test('a once-per-customer code is the buyer’s again after the cancel; uses of other orders stay', async () => {
  const site = await ctx.site();
  const variants = await shirt(site, 10);
  const id = await codeDiscount(site, 'WELCOME', { isOncePerCustomer: true });
  // Two buyers: Ada (the Shopper's default e-mail) and Grace.
  seeOther(await buyWith(site, 'WELCOME', variants));
  const grace = new Shopper(ctx, site.websiteId);
  seeOther(await grace.add(variants.small, 1));
  seeOther(await grace.checkout({ promoCode: 'WELCOME', email: 'grace@example.com' }));
  const before = await read(site, id);
  assert.equal(before.numberOfUses, 2);

  const ada = (await ordersOf(ctx, site.websiteId)).find((o) => o.customer_email === 'ada@example.com');
  await cancelOrder(ctx.api, site.websiteId, ada!.id, { restock: true });
  const after = await read(site, id);
  assert.equal(after.numberOfUses, 1, "Grace's use stays");
  assert.equal(after.lastRedeemedAt, before.lastRedeemedAt, "Grace's use is the last one");

  const again = await buyWith(site, 'WELCOME', variants);
  seeOther(again);
  assert.equal((await read(site, id)).numberOfUses, 2);
});
