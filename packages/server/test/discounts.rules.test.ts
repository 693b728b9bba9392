import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { priceCart } from '../src/discounts/discount-pricing.ts';
import { liveDiscounts } from '../src/discounts/discounts.service.ts';
import { standardShipping } from '../src/discounts/fulfillment-options.ts';
import { body, code, DAY, discountCalls, invalid, usd } from './helpers/discounts.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Discounts v1 (platform-surface 2.7): every refusal (nothing stored), the limits a website has,
 * and the live discounts of a cart. Create, get, replace and delete are in discounts.manage.test.ts.
 */

let ctx: TestContext;
let site: Site;
let product: { id: string; name: string };
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
  product = await createProduct(site, physical(site, { name: 'Linen Shirt' }));
});
after(() => ctx.close());

const { create, created, count } = discountCalls(
  () => ctx,
  () => site,
);

describe('refused, and nothing stored', () => {
  const refusals: [string, Record<string, unknown>, RegExp, string?][] = [
    ['no name', { name: undefined }, /name: is required/, 'MISSING_ARGUMENT'],
    ['a blank name', { name: '   ' }, /name: must not be empty/],
    ['an unknown criteria type', { criteria: { type: 'EVERYTHING' } }, /criteria.type: must be one of/],
    [
      'CART_TOTAL without its minimum',
      { criteria: { type: 'CART_TOTAL' } },
      /criteria.minimumCartTotal: is required for CART_TOTAL/,
      'MISSING_ARGUMENT',
    ],
    ['a percentage of 0', { template: { type: 'PERCENTAGE', percentage: 0 } }, /template.percentage/],
    [
      'a percentage over 100',
      { template: { type: 'PERCENTAGE', percentage: 100.5 } },
      /template.percentage: at most 100/,
    ],
    [
      'a percentage with 3 decimals',
      { template: { type: 'PERCENTAGE', percentage: 12.345 } },
      /template.percentage: at most 2 decimal places/,
    ],
    [
      'a fixed amount of 0',
      { template: { type: 'FIXED_AMOUNT', discountAmount: usd('0.00') } },
      /discountAmount: must be more than 0/,
    ],
    [
      'another currency',
      { template: { type: 'FIXED_AMOUNT', discountAmount: { currency: 'EUR', value: '1.00' } } },
      /website currency USD/,
      'CURRENCY_MISMATCH',
    ],
    [
      'too many decimals',
      { template: { type: 'FIXED_AMOUNT', discountAmount: usd('1.005') } },
      /at most 2 decimal places/,
    ],
    [
      'PRODUCT with FREE_SHIPPING',
      { criteria: { type: 'PRODUCT', productId: 'x' }, template: { type: 'FREE_SHIPPING' } },
      /FREE_SHIPPING cannot go with criteria PRODUCT/,
    ],
    [
      'ANY_ORDER with a BUY_X_GET_Y template',
      { template: { type: 'BUY_X_GET_Y_PERCENTAGE', discountPercentage: 10 } },
      /cannot go with criteria ANY_ORDER/,
    ],
    [
      'BUY_X_GET_Y with PERCENTAGE',
      {
        criteria: {
          type: 'BUY_X_GET_Y',
          requiredFullPriceQuantity: 1,
          eligibleForDiscountQuantity: 1,
          criteriaProductIds: ['a'],
          rewardProductIds: ['a'],
        },
      },
      /PERCENTAGE cannot go with criteria BUY_X_GET_Y/,
    ],
    [
      'a PRODUCT of no product',
      { criteria: { type: 'PRODUCT', productId: 'ffffffffffffffffffffffff' } },
      /criteria.productId: no product ffffffffffffffffffffffff/,
    ],
    [
      'a promo code with a space',
      { trigger: { type: 'CODE', promoCode: 'TEN OFF' } },
      /trigger.promoCode: 1 to 50 letters/,
    ],
    [
      'a promo code of 51 characters',
      { trigger: { type: 'CODE', promoCode: 'A'.repeat(51) } },
      /trigger.promoCode/,
    ],
    [
      'CODE without a code',
      { trigger: { type: 'CODE' } },
      /trigger.promoCode: is required for CODE/,
      'MISSING_ARGUMENT',
    ],
    ['AUTO with a code', { trigger: { type: 'AUTO', promoCode: 'X' } }, /AUTO trigger takes no promo code/],
    ['validFrom not a time', { validFrom: 'tomorrow' }, /validFrom: must be an RFC 3339 date-time/],
    [
      'validFrom in the year 0',
      { validFrom: '0000-06-01T00:00:00Z' },
      /validFrom: the year must be 0001 or later/,
    ],
    [
      'validTo before validFrom',
      { validTo: '2025-11-30T00:00:00Z' },
      /validTo: must be later than validFrom/,
    ],
    [
      'isLimitedUses without maxUsesAllowed',
      { isLimitedUses: true },
      /maxUsesAllowed: is required/,
      'MISSING_ARGUMENT',
    ],
    [
      'maxUsesAllowed without isLimitedUses',
      { maxUsesAllowed: 5 },
      /maxUsesAllowed: must be null unless isLimitedUses/,
    ],
    ['maxUsesAllowed 0', { isLimitedUses: true, maxUsesAllowed: 0 }, /maxUsesAllowed: at least 1/],
    [
      'FREE_SHIPPING on pickup, which the store has not',
      { template: { type: 'FREE_SHIPPING', appliesToFulfillmentOptionType: 'PICKUP' } },
      /no PICKUP fulfillment option/,
    ],
    [
      'FREE_SHIPPING of an unknown option',
      {
        template: {
          type: 'FREE_SHIPPING',
          selectedShippingOption: { shippingOptionId: 'nope', shippingOptionName: 'x' },
        },
      },
      /shippingOptionId: not a fulfillment option of this website/,
    ],
    [
      'an unknown subscription option',
      { subscriptionOptions: { type: 'SOMETIMES' } },
      /subscriptionOptions.type: must be one of/,
    ],
  ];
  for (const [what, overrides, message, subtype] of refusals) {
    test(`${what}: 400 naming the field`, async () => {
      const before = await count();
      invalid(await create(body(overrides)), message, subtype);
      assert.equal(await count(), before);
    });
  }

  test("BUY_X_GET_Y naming another website's product: 400", async () => {
    const stranger = await ctx.site();
    const theirs = await createProduct(stranger, physical(stranger));
    const criteria = {
      type: 'BUY_X_GET_Y',
      requiredFullPriceQuantity: 1,
      eligibleForDiscountQuantity: 1,
      criteriaProductIds: [product.id],
      rewardProductIds: [theirs.id],
    };
    invalid(
      await create(body({ criteria, template: { type: 'BUY_X_GET_Y_PERCENTAGE', discountPercentage: 10 } })),
      new RegExp(`criteria: no product ${theirs.id} on this website`),
    );
  });

  test('a promo code already used in the website, whatever its case: 409 PROMO_CODE_CONFLICT; another website may use it', async () => {
    const promo = code();
    await created(body({ trigger: { type: 'CODE', promoCode: promo } }));
    const before = await count();
    assertError(
      await create(body({ trigger: { type: 'CODE', promoCode: promo.toLowerCase() } })),
      409,
      'CONFLICT',
      'PROMO_CODE_CONFLICT',
      /another discount/,
    );
    assert.equal(await count(), before);
    await created(body({ trigger: { type: 'CODE', promoCode: promo } }), await ctx.site());
  });

  test(`at most 20 AUTO discounts a website: the 21st is a 409 ENTITY_LIMIT_REACHED; CODE ones still go`, async () => {
    const own = await ctx.site();
    for (let i = 0; i < 20; i++) await created(body({ trigger: { type: 'AUTO' } }), own);
    assertError(
      await create(body({ trigger: { type: 'AUTO' } }), own),
      409,
      'CONFLICT',
      'ENTITY_LIMIT_REACHED',
      /at most 20 automatic/,
    );
    assert.equal(await count(own), 20);
    await created(body(), own);
  });

  test('25 AUTO discounts created at once: exactly 20 are made, the others answer 409', async () => {
    const own = await ctx.site();
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => create(body({ trigger: { type: 'AUTO' } }), own)),
    );
    const statuses = answers.map((res) => res.statusCode).sort();
    assert.deepEqual(statuses, [...Array(20).fill(201), ...Array(5).fill(409)]);
    assert.equal(await count(own), 20);
  });

  test('at most 1000 discounts a website: the 1001st is a 409 ENTITY_LIMIT_REACHED', async () => {
    const own = await ctx.site();
    const now = new Date();
    const rows = Array.from({ length: 999 }, (_, i) => ({
      id: ctx.ids.objectId(),
      website_id: own.websiteId,
      name: `d${i}`,
      criteria_type: 'ANY_ORDER' as const,
      template_type: 'PERCENTAGE' as const,
      trigger_type: 'CODE' as const,
      promo_code: `BULK${i}`,
      criteria: JSON.stringify({ type: 'ANY_ORDER' }),
      template: JSON.stringify({ type: 'PERCENTAGE', percentageHundredths: 100 }),
      valid_from: now,
      valid_to: null,
      is_limited_uses: false,
      max_uses_allowed: null,
      is_once_per_customer: false,
      last_redeemed_at: null,
      subscription_options: 'EXCLUDED',
      payment_plan_options: 'NONE',
      created_on: now,
      modified_on: now,
    }));
    await ctx.db.insertInto('discounts').values(rows).execute();
    await created(body(), own);
    assertError(await create(body(), own), 409, 'CONFLICT', 'ENTITY_LIMIT_REACHED', /at most 1000 discounts/);
    assert.equal(await count(own), 1000);
  });
});

describe('the live discounts of a cart', () => {
  test('every ACTIVE AUTO discount and the ACTIVE one of the code entered, whatever its case; priced as one', async () => {
    const own = await ctx.site();
    const now = ctx.clock.now().getTime();
    const auto = await created(
      body({ name: 'Auto 5 %', template: { type: 'PERCENTAGE', percentage: 5 }, trigger: { type: 'AUTO' } }),
      own,
    );
    await created(
      body({ name: 'Later', trigger: { type: 'AUTO' }, validFrom: new Date(now + DAY).toISOString() }),
      own,
    );
    const used = await created(
      body({ name: 'Used', trigger: { type: 'AUTO' }, isLimitedUses: true, maxUsesAllowed: 1 }),
      own,
    );
    await ctx.db.updateTable('discounts').set({ number_of_uses: 1 }).where('id', '=', used.id).execute();
    const promo = code();
    const coded = await created(
      body({
        name: 'Three off',
        template: { type: 'FIXED_AMOUNT', discountAmount: usd('3.00') },
        trigger: { type: 'CODE', promoCode: promo },
        isOncePerCustomer: true,
      }),
      own,
    );
    await created(body({ name: 'Other code' }), own);

    const withCode = await liveDiscounts(ctx.api, own.websiteId, promo.toLowerCase());
    assert.deepEqual(
      withCode.map((d) => [d.rule.name, d.oncePerCustomer]),
      [
        ['Auto 5 %', false],
        ['Three off', true],
      ],
    );
    assert.deepEqual(
      (await liveDiscounts(ctx.api, own.websiteId, null)).map((d) => d.rule.id),
      [auto.id],
    );

    const cart = priceCart({
      currency: 'USD',
      lines: [{ productId: product.id, variantId: null, unitPriceMinor: 2000, quantity: 2 }],
      shipping: standardShipping(own.websiteId, 'USD'),
      discounts: withCode.map((d) => ({ rule: d.rule, usable: true })),
      promoCode: promo.toLowerCase(),
    });
    assert.deepEqual(
      cart.discountLines,
      [{ discountId: coded.id, name: 'Three off', promoCode: promo, amountMinor: 300, amount: usd('3.00') }],
      '3.00 beats 5 % of 40.00',
    );
    assert.equal(cart.totalMinor, 4000 + 500 - 300, "the checkout's 5.00 standard shipping charged");
  });

  test('a FREE_SHIPPING discount naming the standard option takes off the charge the checkout makes', async () => {
    const own = await ctx.site({ currency: 'JPY' });
    const option = (await own.call({ method: 'GET', url: '/v1/fulfillments/fulfillment-options' })).json()
      .fulfillmentOptions[0];
    await created(
      body({
        trigger: { type: 'AUTO' },
        template: {
          type: 'FREE_SHIPPING',
          selectedShippingOption: { shippingOptionId: option.id, shippingOptionName: option.name },
        },
      }),
      own,
    );
    const live = await liveDiscounts(ctx.api, own.websiteId, null);
    const cart = priceCart({
      currency: 'JPY',
      lines: [{ productId: null, variantId: null, unitPriceMinor: 1200, quantity: 1 }],
      shipping: standardShipping(own.websiteId, 'JPY'),
      discounts: live.map((d) => ({ rule: d.rule, usable: true })),
      promoCode: null,
    });
    assert.deepEqual([cart.shippingMinor, cart.shippingDiscountMinor, cart.totalMinor], [5, 5, 1200]);
    assert.deepEqual(cart.discountLines[0]!.amount, { currency: 'JPY', value: '5' });
  });
});
