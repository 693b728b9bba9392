import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { createOrder } from '../src/orders/orders.service.ts';
import type { DraftLine } from '../src/orders/place-order.ts';
import { inventoryCalls } from './helpers/inventory.ts';
import { nativeDraft } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * A cancel putting stock back while orders and adjustments take from the same variants: every
 * change applies whole and one at a time, so none is lost and none deadlocks.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(async () => {
  await ctx.close();
});

const { stocked, adjust, stocks } = inventoryCalls(() => site);

const lines = (ids: string[], quantity: number): DraftLine[] =>
  ids.map((variantId) => ({
    lineItemType: 'PHYSICAL_PRODUCT',
    variantId,
    title: null,
    quantity,
    unitPricePaidMinor: 100,
    customizations: null,
  }));

async function order(ids: string[], quantity: number) {
  const draft = nativeDraft(ctx.clock.now(), {
    lines: lines(ids, quantity),
    subtotalMinor: ids.length * quantity * 100,
    grandTotalMinor: ids.length * quantity * 100,
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

test('cancels restocking, orders and adjustments of the same variants at once: every unit accounted for', async () => {
  // Two products, so the changes lock several rows each and in every order a deadlock could need.
  const a = await stocked([20, 20]);
  const b = await stocked([20]);
  const ids = [...a.ids, ...b.ids];
  const rounds = 5;
  const toCancel = [];
  for (let i = 0; i < rounds; i++) toCancel.push(await order(ids, 2));
  assert.deepEqual(await stocks(ids), [10, 10, 10]);

  const work: Promise<unknown>[] = [];
  for (let i = 0; i < rounds; i++) {
    work.push(cancelOrder(ctx.api, site.websiteId, toCancel[i]!.id, { restock: true }));
    work.push(order([...ids].reverse(), 1));
    const decrement = ids.map((variantId) => ({ variantId, quantity: 1 }));
    work.push(
      adjust({ decrementOperations: decrement }).then((res) => assert.equal(res.statusCode, 204, res.body)),
    );
  }
  const results = await Promise.allSettled(work);
  assert.deepEqual(
    results.filter((r) => r.status === 'rejected'),
    [],
    'every cancel, order and adjustment applied',
  );
  // 10 left + 5 cancels of 2 back - 5 orders of 1 - 5 adjustments of 1.
  assert.deepEqual(await stocks(ids), [10, 10, 10]);
  const statuses = await ctx.db
    .selectFrom('orders')
    .select('fulfillment_status')
    .where(
      'id',
      'in',
      toCancel.map((o) => o.id),
    )
    .execute();
  assert.deepEqual(
    statuses.map((s) => s.fulfillment_status),
    Array(rounds).fill('CANCELED'),
  );
});
