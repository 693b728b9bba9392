import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { createOrder } from '../src/orders/orders.service.ts';
import { refundOrder, type RefundInput } from '../src/orders/refund-order.ts';
import { inventoryCalls } from './helpers/inventory.ts';
import { nativeDraft } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Refunds at once with each other and with a cancel: the order's lock makes them one at a time,
 * so what is given back never passes what was paid and no item goes back in stock twice.
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

const { stocked, stocks } = inventoryCalls(() => site);

/** An order of 4 items at 10.00, paid by card. */
async function paidOrder(variantId: string) {
  const draft = nativeDraft(ctx.clock.now(), {
    lines: [
      {
        lineItemType: 'PHYSICAL_PRODUCT',
        variantId,
        title: null,
        quantity: 4,
        unitPricePaidMinor: 1000,
        customizations: null,
      },
    ],
    subtotalMinor: 4000,
    grandTotalMinor: 4000,
    payment: {
      provider: 'STRIPE',
      creditCardType: 'VISA',
      externalTransactionId: 'ch_test_race',
      paidOn: ctx.clock.now(),
      processingFeeMinor: 146,
    },
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

const refundsOf = (orderId: string) =>
  ctx.db.selectFrom('order_refunds').select(['amount_minor']).where('order_id', '=', orderId).execute();

const everything: RefundInput = { full: true, restock: true, lines: [], shipping: false, otherMinor: 0 };

test('two refunds racing for the last 30.00: one wins, the other is refused, and 40.00 is refunded in all', async () => {
  const { ids } = await stocked([100]);
  for (let round = 0; round < 5; round++) {
    const placed = await paidOrder(ids[0]!);
    await refundOrder(ctx.api, site.websiteId, placed.id, { ...everything, full: false, otherMinor: 1000 });
    const results = await Promise.allSettled([
      refundOrder(ctx.api, site.websiteId, placed.id, { ...everything, full: false, otherMinor: 3000 }),
      refundOrder(ctx.api, site.websiteId, placed.id, { ...everything, full: false, otherMinor: 3000 }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected')!.reason as { status: number };
    assert.ok([400, 409].includes(refused.status), String(refused));
    const amounts = (await refundsOf(placed.id)).map((r) => r.amount_minor);
    assert.deepEqual(amounts.sort(), [1000, 3000]);
    const [order] = await ctx.db
      .selectFrom('orders')
      .select(['refunded_total_minor', 'payment_state'])
      .where('id', '=', placed.id)
      .execute();
    assert.deepEqual(order, { refunded_total_minor: 4000, payment_state: 'REFUNDED' });
  }
});

test('a full refund with restock and a cancel with restock at once: every item back exactly once', async () => {
  const { ids } = await stocked([20]);
  for (let round = 0; round < 5; round++) {
    const placed = await paidOrder(ids[0]!);
    const [before] = await stocks(ids);
    const results = await Promise.allSettled([
      refundOrder(ctx.api, site.websiteId, placed.id, everything),
      cancelOrder(ctx.api, site.websiteId, placed.id, { restock: true, refund: true }),
    ]);
    const done = results.filter((r) => r.status === 'fulfilled').length;
    assert.ok(done >= 1, JSON.stringify(results));
    // Whichever ran first, the other found nothing left to do twice.
    const [after] = await stocks(ids);
    assert.equal(after, Number(before) + 4, 'the 4 items back once');
    const refunded = (await refundsOf(placed.id)).reduce((sum, r) => sum + r.amount_minor, 0);
    assert.equal(refunded, 4000, 'the payment refunded once');
  }
});
