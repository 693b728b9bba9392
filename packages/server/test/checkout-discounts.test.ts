import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cartOfShirts, cents, createDiscount, DISCOUNTS, placed } from './helpers/checkout-discounts.ts';
import { ordersOf, seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Discounts at the storefront's checkout: the code's outcome told in plain words, the price
 * computed again when the order is placed, and the order, its transaction document and the
 * discount's uses agreeing to the cent.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

let codes = 0;
const code = () => `CHK${++codes}`;
const shopperWithCart = async (site: Site) => (await cartOfShirts(ctx, site)).shopper;

describe('a promo code at the checkout', () => {
  test('a 10 % code applied: shown on the page, then on the order and its document to the cent', async () => {
    const site = await ctx.site();
    const promo = code();
    const d = await createDiscount(site, { trigger: { type: 'CODE', promoCode: promo } });
    const shopper = await shopperWithCart(site);
    const applied = await shopper.post(`/s/${site.websiteId}/checkout`, {
      promoCode: promo.toLowerCase(),
      action: 'apply',
    });
    assert.equal(applied.statusCode, 200, applied.body);
    assert.match(text(applied), new RegExp(`The code ${promo} is applied`, 'i'));
    assert.match(text(applied), /Discount: 10 % off\s+−\$5\.00/);
    assert.match(applied.body, /name="promoCode"[^>]*value="chk\d+"|value="chk\d+"[^>]*name="promoCode"/i);
    assert.match(applied.body, /name="shownTotal" value="5000"/);

    seeOther(await shopper.checkout({ promoCode: promo, shownTotal: '5000' }));
    const { order, document } = await placed(ctx, site);
    assert.equal(order.discountTotal.value, '5.00');
    assert.equal(order.grandTotal.value, '50.00');
    assert.deepEqual(
      order.discountLines.map((l: Record<string, unknown>) => [
        l.name,
        l.promoCode,
        (l.amount as { value: string }).value,
      ]),
      [['10 % off', promo, '5.00']],
    );
    assert.equal(document.total.value, '50.00');
    assert.equal(document.discounts[0].amount.value, '5.00');
    assert.equal(
      cents(document.salesLineItems.map((l: { discountAmount: object }) => l.discountAmount)),
      500,
    );
    assert.equal(document.shippingLineItems[0].discountAmount.value, '0.00');
    assert.equal(document.payments[0].amount.value, '50.00');

    const seen = (await site.call({ method: 'GET', url: `${DISCOUNTS}/${d.id}` })).json().discount;
    assert.equal(seen.numberOfUses, 1);
    assert.ok(seen.lastRedeemedAt, 'lastRedeemedAt is set');
  });

  test('an automatic free shipping: the shipping line shows it, the document puts it on the shipping line', async () => {
    const site = await ctx.site();
    await createDiscount(site, {
      name: 'Free shipping',
      template: { type: 'FREE_SHIPPING', appliesToFulfillmentOptionType: 'SHIPPING' },
    });
    const shopper = await shopperWithCart(site);
    const page = await ctx.app.inject({
      method: 'GET',
      url: `/s/${site.websiteId}/checkout`,
      headers: { cookie: [...shopper.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    assert.match(text(page), /free: Free shipping/);
    seeOther(await shopper.checkout({ shownTotal: '5000' }));
    const { order, document } = await placed(ctx, site);
    assert.equal(order.discountTotal.value, '5.00');
    assert.equal(order.grandTotal.value, '50.00');
    assert.equal(document.shippingLineItems[0].discountAmount.value, '5.00');
    assert.equal(document.shippingLineItems[0].netAmount.value, '0.00');
    assert.equal(cents(document.salesLineItems.map((l: { discountAmount: object }) => l.discountAmount)), 0);
    assert.equal(document.totalNetSales.value, '50.00');
  });

  test('an unknown code is told so and the form keeps it; the order is placed at the full price', async () => {
    const site = await ctx.site();
    const shopper = await shopperWithCart(site);
    const res = await shopper.post(`/s/${site.websiteId}/checkout`, {
      promoCode: 'NOPE<b>',
      action: 'apply',
    });
    assert.match(res.body, /We do not know the code NOPE&lt;b&gt;/);
    assert.doesNotMatch(res.body, /NOPE<b>/, 'escaped');
    assert.match(res.body, /aria-describedby="f-promoCode-status"/);
    seeOther(await shopper.checkout({ promoCode: 'NOPE', shownTotal: '5500' }));
    assert.equal((await placed(ctx, site)).order.grandTotal.value, '55.00');
  });

  test('once per customer: the same e-mail cannot use the code twice', async () => {
    const site = await ctx.site();
    const promo = code();
    await createDiscount(site, { trigger: { type: 'CODE', promoCode: promo }, isOncePerCustomer: true });
    const first = await shopperWithCart(site);
    seeOther(await first.checkout({ promoCode: promo, shownTotal: '5000' }));
    const again = await shopperWithCart(site);
    const res = await again.post(`/s/${site.websiteId}/checkout`, {
      promoCode: promo,
      email: 'ADA@example.com',
      action: 'apply',
    });
    assert.match(text(res), /no longer available to you/);
    const refused = await again.checkout({ promoCode: promo, shownTotal: '5000' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(text(refused), /no longer available, so your total is now \$55\.00, not \$50\.00/);
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 1);
    assert.ok(again.cookies.has('emporium_cart'), 'the cart is kept');
  });

  test('a code the cart does not qualify for, and one a better automatic discount beats', async () => {
    const site = await ctx.site();
    const big = code();
    await createDiscount(site, {
      criteria: { type: 'CART_TOTAL', minimumCartTotal: { currency: 'USD', value: '100.00' } },
      trigger: { type: 'CODE', promoCode: big },
    });
    const small = code();
    await createDiscount(site, {
      name: '1 off',
      template: { type: 'FIXED_AMOUNT', discountAmount: { currency: 'USD', value: '1.00' } },
      trigger: { type: 'CODE', promoCode: small },
    });
    await createDiscount(site, { name: 'Autumn 10 %' });
    const shopper = await shopperWithCart(site);
    const url = `/s/${site.websiteId}/checkout`;
    assert.match(text(await shopper.post(url, { promoCode: big, action: 'apply' })), /does not qualify/);
    const beaten = await shopper.post(url, { promoCode: small, action: 'apply' });
    assert.match(text(beaten), /a better automatic discount applies/);
    assert.match(text(beaten), /Discount: Autumn 10 %/);
  });

  test('the cart page shows the automatic discount, its saving and the total after it', async () => {
    const site = await ctx.site();
    await createDiscount(site, { name: 'Autumn 10 %' });
    const shopper = await shopperWithCart(site);
    const page = await shopper.get(`/s/${site.websiteId}/cart`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(
      text(page),
      /Subtotal \$50\.00 Discount: Autumn 10 % −\$5\.00 Shipping \$5\.00 Total \$50\.00/,
    );
  });

  test('a fixed amount off each unit of a product on sale: order, document and summary agree', async () => {
    const site = await ctx.site();
    const { product, small } = await shirt(site, 5);
    await createDiscount(site, {
      name: '2.50 off shirts',
      criteria: { type: 'PRODUCT', productId: product.id },
      template: { type: 'FIXED_AMOUNT', discountAmount: { currency: 'USD', value: '2.50' } },
    });
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 3));
    // 3 × 15.00 on sale − 3 × 2.50 + 5.00 shipping.
    seeOther(await shopper.checkout({ shownTotal: '4250' }));
    const { order, document } = await placed(ctx, site);
    assert.equal(order.subtotal.value, '45.00');
    assert.equal(order.discountTotal.value, '7.50');
    assert.equal(order.grandTotal.value, '42.50');
    assert.equal(document.salesLineItems[0].discountAmount.value, '7.50');
    assert.equal(document.totalNetSales.value, '37.50');
    assert.equal(document.total.value, '42.50');
    // Stripe's fee on what was charged: 2.9 % of 42.50 + 0.30.
    assert.equal(document.payments[0].processingFees[0].amount.value, '1.53');
    const summary = await site.call({
      method: 'POST',
      url: '/v1/analytics/transaction-summaries',
      payload: { contactIds: [order.customerId], groupBy: 'contactId' },
    });
    assert.equal(summary.statusCode, 200, summary.body);
    assert.equal(
      summary.json().transactionsSummaryWrappers[0].transactionsSummary.totalOrderAmount.value,
      '42.50',
    );
  });

  test('a code deleted after the page showed it: no order, told the new total, the cart kept', async () => {
    const site = await ctx.site();
    const promo = code();
    const d = await createDiscount(site, { trigger: { type: 'CODE', promoCode: promo } });
    const shopper = await shopperWithCart(site);
    const applied = await shopper.post(`/s/${site.websiteId}/checkout`, {
      promoCode: promo,
      action: 'apply',
    });
    assert.match(applied.body, /name="shownTotal" value="5000"/);
    const gone = await site.call({ method: 'DELETE', url: `${DISCOUNTS}/${d.id}` });
    assert.ok(gone.statusCode < 300, gone.body);
    const refused = await shopper.checkout({ promoCode: promo, shownTotal: '5000' });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(text(refused), /your total is now \$55\.00, not \$50\.00\. Nothing was charged/);
    assert.match(refused.body, /value="CHK\d+"/, 'the code is kept in the form');
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 0);
    assert.equal(
      text(await shopper.get(`/s/${site.websiteId}/cart`)).includes('$50.00'),
      true,
      'the cart is kept',
    );
  });
});
