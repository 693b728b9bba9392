import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrder } from '../src/orders/orders.service.ts';
import { sampleOrderDraft } from '../src/orders/sample-order.ts';
import { NotFound } from '../src/shared/errors.ts';
import { createProduct, digital, money, physical, variant } from './helpers/factories.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** The sample orders of `emporium admin create-order` and the demo site. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

/** A `random` that returns these values in turn, then the last one. */
const sequence =
  (...values: number[]) =>
  () =>
    values.length > 1 ? values.shift()! : values[0]!;

const NOW = new Date('2026-05-04T10:00:00.000Z');

describe('sampleOrderDraft', () => {
  test('lines of stocked PHYSICAL variants only, at the sale price when on sale, never more than the stock', async () => {
    const site = await ctx.site();
    const usd = (value: string) => money(value, 'USD');
    await createProduct(site, digital(site));
    const stocked = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size'],
        variants: [
          variant('ONE-LEFT', {
            attributes: { Size: 'S' },
            pricing: { basePrice: usd('20.00'), salePrice: usd('15.50'), onSale: true },
            stock: { quantity: 1, unlimited: false },
          }),
          variant('SOLD-OUT', { attributes: { Size: 'M' }, stock: { quantity: 0, unlimited: false } }),
          variant('ENDLESS', {
            attributes: { Size: 'L' },
            pricing: { basePrice: usd('7.25'), salePrice: usd('1.00'), onSale: false },
            stock: { quantity: 0, unlimited: true },
          }),
        ],
      }),
    );
    // The highest value at every choice: the most lines, the largest quantity, the last buyer.
    const draft = await sampleOrderDraft(ctx.api, site.websiteId, NOW, () => 0.999);
    const lines = draft.lines.map((l) => [l.variantId, l.quantity, l.unitPricePaidMinor]);
    const [oneLeft, , endless] = stocked.variants.map((v: { id: string }) => v.id);
    assert.deepEqual(
      lines.sort(),
      [
        [oneLeft, 1, 1550],
        [endless, 2, 725],
      ].sort(),
    );
    assert.equal(draft.subtotalMinor, 1550 + 2 * 725);
    assert.equal(draft.shippingTotalMinor, 500);
    assert.deepEqual(draft.shippingLines, [{ method: 'Standard shipping', amountMinor: 500 }]);
    assert.equal(draft.grandTotalMinor, draft.subtotalMinor + 500);
    assert.equal(draft.taxTotalMinor, 0);
    assert.equal(draft.payment?.processingFeeMinor, Math.round(draft.grandTotalMinor * 0.029 + 30));
    assert.match(draft.payment!.externalTransactionId, /^ch_test_[A-Za-z0-9]{24}$/);
    assert.deepEqual(draft.payment?.paidOn, NOW);
    assert.equal(draft.placedOn, NOW);
    assert.deepEqual(draft.billingAddress, draft.shippingAddress);
    assert.equal(draft.billingAddress?.countryCode, 'US');
    assert.ok(draft.customerEmail?.endsWith('@example.com'));

    const placed = await createOrder(ctx.api, site.websiteId, draft);
    assert.equal(placed.json.grandTotal.value, ((1550 + 1450 + 500) / 100).toFixed(2));
    const one = await sampleOrderDraft(ctx.api, site.websiteId, NOW, sequence(0, 0, 0));
    assert.deepEqual(
      one.lines.map((l) => [l.variantId, l.quantity]),
      [[endless, 1]],
      'the variant whose last item was sold is no longer offered',
    );
  });

  test('in a zero-decimal currency, shipping and the fixed fee are in whole units; without stock, a gift wrap', async () => {
    const site = await ctx.site({ currency: 'JPY' });
    const draft = await sampleOrderDraft(ctx.api, site.websiteId, NOW, () => 0);
    assert.deepEqual(
      draft.lines.map((l) => [l.lineItemType, l.title, l.quantity, l.unitPricePaidMinor]),
      [['CUSTOM', 'Gift wrap', 1, 5]],
    );
    assert.equal(draft.shippingTotalMinor, 5);
    assert.equal(draft.grandTotalMinor, 10);
    assert.equal(draft.payment?.processingFeeMinor, 1, '2.9% of 10 yen and 0.3 yen, rounded');
    const placed = await createOrder(ctx.api, site.websiteId, draft);
    assert.deepEqual(placed.json.grandTotal, { currency: 'JPY', value: '10' });
    assert.deepEqual(placed.json.shippingLines, [
      { method: 'Standard shipping', amount: { currency: 'JPY', value: '5' } },
    ]);
  });

  test('an unknown website is not found', async () => {
    await assert.rejects(sampleOrderDraft(ctx.api, 'f'.repeat(24), NOW), NotFound);
  });
});
