import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cartOfShirts, cents, createDiscount, lineDiscounts, placed } from './helpers/checkout-discounts.ts';
import { seeOther, Shopper, shirt } from './helpers/shopper.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * Automatic discounts of each criteria and template at the store's checkout: the order's totals,
 * and its transaction document with the saving on the sales lines it was taken from.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

/** Buy two of the product, get one more: the criteria of a BUY_X_GET_Y discount. */
const buyTwoGetOne = (productId: string) => ({
  type: 'BUY_X_GET_Y',
  requiredFullPriceQuantity: 2,
  eligibleForDiscountQuantity: 1,
  criteriaAppliesTo: 'PRODUCT',
  criteriaProductIds: [productId],
  rewardAppliesTo: 'PRODUCT',
  rewardProductIds: [productId],
});

describe('buy X get Y at the checkout', () => {
  test('buy two shirts, get a third half price: the cheapest unit is halved, on its own sales line', async () => {
    const site = await ctx.site();
    const { shopper, product } = await cartOfShirts(ctx, site); // 2 × S at 15.00, 1 × M at 20.00
    await createDiscount(site, {
      name: 'Third shirt half price',
      criteria: buyTwoGetOne(product.id),
      template: { type: 'BUY_X_GET_Y_PERCENTAGE', discountPercentage: 50, maxApplicationsPerCart: 0 },
    });
    seeOther(await shopper.checkout({ shownTotal: '4750' }));
    const { order, document } = await placed(ctx, site);
    // 50.00 of shirts, one 15.00 unit at half price, 5.00 shipping.
    assert.equal(order.discountTotal.value, '7.50');
    assert.equal(order.grandTotal.value, '47.50');
    assert.deepEqual(
      order.discountLines.map((l: { name: string; amount: { value: string } }) => [l.name, l.amount.value]),
      [['Third shirt half price', '7.50']],
    );
    assert.deepEqual(lineDiscounts(document), ['7.50', '0.00'], 'the S line has it, the M line none');
    assert.deepEqual(
      document.salesLineItems.map((l: { totalNetSales: { value: string } }) => l.totalNetSales.value),
      ['22.50', '20.00'],
    );
    assert.equal(document.total.value, '47.50');
  });

  test('buy two shirts, get 5.00 off a third: the fixed amount comes off the cheapest unit', async () => {
    const site = await ctx.site();
    const { shopper, product } = await cartOfShirts(ctx, site);
    await createDiscount(site, {
      name: 'Five off the third shirt',
      criteria: buyTwoGetOne(product.id),
      template: {
        type: 'BUY_X_GET_Y_FIXED_AMOUNT',
        discountAmount: { currency: 'USD', value: '5.00' },
        maxApplicationsPerCart: 1,
      },
    });
    seeOther(await shopper.checkout({ shownTotal: '5000' }));
    const { order, document } = await placed(ctx, site);
    assert.equal(order.subtotal.value, '50.00');
    assert.equal(order.discountTotal.value, '5.00');
    assert.equal(order.grandTotal.value, '50.00');
    assert.deepEqual(
      order.discountLines.map((l: { name: string; amount: { value: string } }) => [l.name, l.amount.value]),
      [['Five off the third shirt', '5.00']],
    );
    assert.deepEqual(lineDiscounts(document), ['5.00', '0.00']);
    assert.equal(document.totalNetSales.value, '45.00');
    assert.equal(document.total.value, '50.00');
  });
});

describe('a product discount at the checkout', () => {
  test('10 % off one product: only its line is discounted, not the other product in the cart', async () => {
    const site = await ctx.site();
    const shirts = await shirt(site, 5);
    const other = await shirt(site, 5, { name: 'Wool shirt' });
    await createDiscount(site, {
      name: '10 % off linen',
      criteria: { type: 'PRODUCT', productId: shirts.product.id },
      template: { type: 'PERCENTAGE', percentage: 10 },
    });
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(shirts.small, 2)); // 30.00
    seeOther(await shopper.add(other.medium, 1)); // 20.00, not discounted
    // 50.00 − 10 % of 30.00 + 5.00 shipping.
    seeOther(await shopper.checkout({ shownTotal: '5200' }));
    const { order, document } = await placed(ctx, site);
    assert.equal(order.discountTotal.value, '3.00');
    assert.equal(order.grandTotal.value, '52.00');
    assert.deepEqual(lineDiscounts(document), ['3.00', '0.00']);
    assert.deepEqual(
      document.salesLineItems.map((l: { totalNetSales: { value: string } }) => l.totalNetSales.value),
      ['27.00', '20.00'],
    );
    assert.equal(document.totalNetSales.value, '47.00');
    assert.equal(cents(document.salesLineItems.map((l: { total: object }) => l.total)), 4700);
    assert.equal(document.total.value, '52.00');
  });
});

describe('order-wide discounts at the checkout', () => {
  test('a cart total minimum: 10.00 off from 50.00 of merchandise, nothing below it', async () => {
    const reached = await ctx.site();
    const missed = await ctx.site();
    for (const [site, minimum] of [
      [reached, '50.00'],
      [missed, '50.01'],
    ] as const) {
      await createDiscount(site, {
        name: 'Ten off fifty',
        criteria: { type: 'CART_TOTAL', minimumCartTotal: { currency: 'USD', value: minimum } },
        template: { type: 'FIXED_AMOUNT', discountAmount: { currency: 'USD', value: '10.00' } },
      });
      const { shopper } = await cartOfShirts(ctx, site);
      seeOther(await shopper.checkout({ shownTotal: site === reached ? '4500' : '5500' }));
    }
    const got = await placed(ctx, reached);
    assert.equal(got.order.discountTotal.value, '10.00');
    assert.equal(got.order.grandTotal.value, '45.00');
    // An order-wide discount is spread over the lines in proportion to their sales: 30 : 20.
    assert.deepEqual(lineDiscounts(got.document), ['6.00', '4.00']);
    const not = (await placed(ctx, missed)).order;
    assert.equal(not.discountTotal.value, '0.00');
    assert.deepEqual(not.discountLines, []);
    assert.equal(not.grandTotal.value, '55.00');
  });
});
