import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DiscountEnvelope } from '../src/discounts/discounts.schemas.ts';
import { priceCart } from '../src/discounts/discount-pricing.ts';
import { liveDiscounts } from '../src/discounts/discounts.service.ts';
import { standardShipping, standardShippingId } from '../src/discounts/fulfillment-options.ts';
import { createApiKey } from '../src/owner/api-keys.service.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { withCredential } from './helpers/inventory.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** Discounts v1 (platform-surface 2.7): create, get, replace, delete, and every refusal. */

const PATH = '/v1/commerce/discounts';
const DAY = 24 * 3600_000;

let ctx: TestContext;
let site: Site;
let product: { id: string; name: string };
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
  product = await createProduct(site, physical(site, { name: 'Linen Shirt' }));
});
after(() => ctx.close());

let codes = 0;
const code = () => `SAVE${++codes}`;
const usd = (value: string) => ({ currency: 'USD', value });
const body = (overrides: Record<string, unknown> = {}) => ({
  name: '10 % off',
  criteria: { type: 'ANY_ORDER' },
  template: { type: 'PERCENTAGE', percentage: 10 },
  trigger: { type: 'CODE', promoCode: code() },
  validFrom: '2025-12-01T00:00:00Z',
  ...overrides,
});
const create = (payload: object, s: Site = site) => s.call({ method: 'POST', url: PATH, payload });
async function created(payload: object, s: Site = site) {
  const res = await create(payload, s);
  assert.equal(res.statusCode, 201, res.body);
  assertShape(DiscountEnvelope, res.json());
  return res.json().discount;
}
const get = (id: string, s: Site = site) => s.call({ method: 'GET', url: `${PATH}/${id}` });
const count = async (s: Site = site) =>
  (
    await ctx.db
      .selectFrom('discounts')
      .select(ctx.db.fn.countAll<number>().as('n'))
      .where('website_id', '=', s.websiteId)
      .executeTakeFirstOrThrow()
  ).n;
const invalid = (res: Parameters<typeof assertError>[0], message: RegExp, subtype = 'INVALID_ARGUMENT') =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

describe('create and get', () => {
  test('POST answers 201 { discount } with every field, defaults filled; GET answers the same', async () => {
    const promo = code();
    const discount = await created(body({ trigger: { type: 'CODE', promoCode: promo } }));
    assert.match(discount.id, /^[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...discount, id: undefined },
      {
        id: undefined,
        websiteId: site.websiteId,
        name: '10 % off',
        criteria: { type: 'ANY_ORDER' },
        template: { type: 'PERCENTAGE', percentage: 10 },
        trigger: { type: 'CODE', promoCode: promo },
        validFrom: '2025-12-01T00:00:00.000Z',
        validTo: null,
        isLimitedUses: false,
        maxUsesAllowed: null,
        isOncePerCustomer: false,
        numberOfUses: 0,
        lastRedeemedAt: null,
        status: 'ACTIVE',
        subscriptionOptions: { type: 'EXCLUDED' },
        paymentPlanOptions: { type: 'NONE' },
      },
    );
    const res = await get(discount.id);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { discount });
  });

  test('every criteria and template pairing the table allows is stored and shown as sent, money as strings', async () => {
    const other = await createProduct(site, physical(site, { name: 'Mug' }));
    const cases = [
      [
        { type: 'CART_TOTAL', minimumCartTotal: { currency: 'USD', value: 50 } },
        { type: 'FIXED_AMOUNT', discountAmount: usd('5.5') },
      ],
      [{ type: 'ANY_ORDER' }, { type: 'FREE_SHIPPING' }],
      [
        { type: 'PRODUCT', productId: product.id, productName: 'ignored' },
        { type: 'PERCENTAGE', percentage: 12.5 },
      ],
      [
        {
          type: 'BUY_X_GET_Y',
          requiredFullPriceQuantity: 2,
          eligibleForDiscountQuantity: 1,
          criteriaAppliesTo: 'PRODUCT',
          criteriaProductIds: [product.id],
          rewardAppliesTo: 'PRODUCT',
          rewardProductIds: [product.id, other.id],
        },
        { type: 'BUY_X_GET_Y_PERCENTAGE', discountPercentage: 50, maxApplicationsPerCart: 2 },
      ],
      [
        {
          type: 'BUY_X_GET_Y',
          requiredFullPriceQuantity: 1,
          eligibleForDiscountQuantity: 1,
          criteriaProductIds: [other.id],
          rewardProductIds: [other.id],
        },
        {
          type: 'BUY_X_GET_Y_FIXED_AMOUNT',
          discountAmount: { currency: { currencyCode: 'USD' }, value: '3' },
        },
      ],
    ];
    const shown = [];
    for (const [criteria, template] of cases) {
      const d = await created(body({ criteria, template }));
      shown.push([d.criteria, d.template]);
    }
    assert.deepEqual(shown, [
      [
        { type: 'CART_TOTAL', minimumCartTotal: usd('50.00') },
        { type: 'FIXED_AMOUNT', discountAmount: usd('5.50') },
      ],
      [
        { type: 'ANY_ORDER' },
        { type: 'FREE_SHIPPING', appliesToFulfillmentOptionType: 'SHIPPING', selectedShippingOption: null },
      ],
      [
        { type: 'PRODUCT', productId: product.id, productName: 'Linen Shirt' },
        { type: 'PERCENTAGE', percentage: 12.5 },
      ],
      [
        {
          type: 'BUY_X_GET_Y',
          requiredFullPriceQuantity: 2,
          eligibleForDiscountQuantity: 1,
          criteriaAppliesTo: 'PRODUCT',
          criteriaProductIds: [product.id],
          rewardAppliesTo: 'PRODUCT',
          rewardProductIds: [product.id, other.id],
        },
        { type: 'BUY_X_GET_Y_PERCENTAGE', discountPercentage: 50, maxApplicationsPerCart: 2 },
      ],
      [
        {
          type: 'BUY_X_GET_Y',
          requiredFullPriceQuantity: 1,
          eligibleForDiscountQuantity: 1,
          criteriaAppliesTo: 'PRODUCT',
          criteriaProductIds: [other.id],
          rewardAppliesTo: 'PRODUCT',
          rewardProductIds: [other.id],
        },
        { type: 'BUY_X_GET_Y_FIXED_AMOUNT', discountAmount: usd('3.00'), maxApplicationsPerCart: 0 },
      ],
    ]);
  });

  test('FREE_SHIPPING may name the standard shipping option, with all its services', async () => {
    const selected = {
      shippingOptionId: standardShippingId(site.websiteId),
      shippingOptionName: 'anything',
      isAllServicesSelected: true,
    };
    const d = await created(
      body({
        template: {
          type: 'FREE_SHIPPING',
          appliesToFulfillmentOptionType: 'SHIPPING',
          selectedShippingOption: selected,
        },
      }),
    );
    assert.deepEqual(d.template.selectedShippingOption, {
      ...selected,
      shippingOptionName: 'Standard Shipping',
      selectedService: null,
    });
  });

  test('the PRODUCT criterion keeps the name the product had when the discount was made', async () => {
    const shirt = await createProduct(site, physical(site, { name: 'Old name' }));
    const d = await created(
      body({
        criteria: { type: 'PRODUCT', productId: shirt.id },
        template: { type: 'FIXED_AMOUNT', discountAmount: usd('1.00') },
      }),
    );
    const renamed = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${shirt.id}`,
      payload: { name: 'New name' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal((await get(d.id)).json().discount.criteria.productName, 'Old name');
  });

  test('status follows the clock: SCHEDULED before validFrom, ACTIVE, then EXPIRED at validTo', async () => {
    const now = ctx.clock.now().getTime();
    const d = await created(
      body({ validFrom: new Date(now + DAY).toISOString(), validTo: new Date(now + 2 * DAY).toISOString() }),
    );
    assert.equal(d.status, 'SCHEDULED');
    ctx.clock.advance(DAY);
    assert.equal((await get(d.id)).json().discount.status, 'ACTIVE');
    ctx.clock.advance(DAY);
    assert.equal((await get(d.id)).json().discount.status, 'EXPIRED');
  });

  test('a limited discount whose uses are used up is EXPIRED', async () => {
    const d = await created(body({ isLimitedUses: true, maxUsesAllowed: 2 }));
    assert.deepEqual([d.status, d.maxUsesAllowed], ['ACTIVE', 2]);
    await ctx.db.updateTable('discounts').set({ number_of_uses: 2 }).where('id', '=', d.id).execute();
    const after = (await get(d.id)).json().discount;
    assert.deepEqual([after.numberOfUses, after.status], [2, 'EXPIRED']);
  });
});

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

describe('replace and delete', () => {
  test('PUT replaces the whole discount: left-out fields take their defaults, read-only fields are ignored', async () => {
    const d = await created(
      body({
        isOncePerCustomer: true,
        isLimitedUses: true,
        maxUsesAllowed: 3,
        validTo: '2027-01-01T00:00:00Z',
      }),
    );
    await ctx.db.updateTable('discounts').set({ number_of_uses: 1 }).where('id', '=', d.id).execute();
    const res = await site.call({
      method: 'PUT',
      url: `${PATH}/${d.id}`,
      payload: {
        ...body({ name: 'Free shipping', template: { type: 'FREE_SHIPPING' }, trigger: { type: 'AUTO' } }),
        id: 'ignored',
        websiteId: 'ignored',
        numberOfUses: 99,
        status: 'EXPIRED',
        lastRedeemedAt: 'never',
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const replaced = res.json().discount;
    assert.equal(replaced.id, d.id);
    assert.equal(replaced.websiteId, site.websiteId);
    assert.equal(replaced.name, 'Free shipping');
    assert.deepEqual(replaced.trigger, { type: 'AUTO' });
    assert.deepEqual(
      [
        replaced.isOncePerCustomer,
        replaced.isLimitedUses,
        replaced.maxUsesAllowed,
        replaced.validTo,
        replaced.numberOfUses,
        replaced.status,
      ],
      [false, false, null, null, 1, 'ACTIVE'],
    );
    assert.deepEqual((await get(d.id)).json(), { discount: replaced });
  });

  test("PUT: a refused body changes nothing; another discount's code is a 409; an unknown id a 404", async () => {
    const first = await created(body());
    const second = await created(body());
    const put = (id: string, payload: object) => site.call({ method: 'PUT', url: `${PATH}/${id}`, payload });
    invalid(await put(second.id, body({ validTo: '2020-01-01T00:00:00Z' })), /validTo/);
    assertError(
      await put(second.id, body({ trigger: first.trigger })),
      409,
      'CONFLICT',
      'PROMO_CODE_CONFLICT',
    );
    assert.deepEqual((await get(second.id)).json().discount, second);
    const own = await put(
      second.id,
      body({ trigger: { type: 'CODE', promoCode: second.trigger.promoCode.toLowerCase() } }),
    );
    assert.equal(own.statusCode, 200, 'its own code, in another case, is no conflict');
    assertError(
      await put('ffffffffffffffffffffffff', body()),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      /discount not found/,
    );
  });

  test('DELETE answers 204, then the discount is gone (404) and its code free again', async () => {
    const d = await created(body());
    const res = await site.call({ method: 'DELETE', url: `${PATH}/${d.id}` });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assertError(await get(d.id), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    assertError(
      await site.call({ method: 'DELETE', url: `${PATH}/${d.id}` }),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    await created(body({ trigger: d.trigger }));
  });

  test("another website's discount is a 404 to get, replace and delete, and stays as it was", async () => {
    const d = await created(body());
    const stranger = await ctx.site();
    assertError(await get(d.id, stranger), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    assertError(
      await stranger.call({ method: 'PUT', url: `${PATH}/${d.id}`, payload: body() }),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    assertError(
      await stranger.call({ method: 'DELETE', url: `${PATH}/${d.id}` }),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    assert.deepEqual((await get(d.id)).json().discount, d);
    assertError(await get('not-an-id'), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
  });
});

describe('scopes and fulfillment options', () => {
  test('website.discounts.read reads but cannot write; without it, 403 MISSING_SCOPE', async () => {
    const d = await created(body());
    const { apiKey: readKey } = await createApiKey(
      { db: ctx.db, clock: ctx.clock, ids: ctx.ids },
      { websiteId: site.websiteId, scopes: 'website.discounts.read' },
    );
    const reader = withCredential(ctx, site, readKey);
    assert.equal((await get(d.id, reader)).statusCode, 200);
    assert.equal((await reader.call({ method: 'GET', url: PATH })).statusCode, 200);
    assertError(
      await create(body(), reader),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
      /website.discounts scope/,
    );
    assertError(
      await reader.call({ method: 'DELETE', url: `${PATH}/${d.id}` }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
    );
    const { apiKey: ordersKey } = await createApiKey(
      { db: ctx.db, clock: ctx.clock, ids: ctx.ids },
      { websiteId: site.websiteId, scopes: 'website.orders' },
    );
    const other = withCredential(ctx, site, ordersKey);
    assertError(
      await get(d.id, other),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
      /website.discounts.read/,
    );
    assertError(
      await other.call({ method: 'GET', url: '/v1/fulfillments/fulfillment-options' }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
    );
  });

  test('fulfillment options: Standard Shipping, type SHIPPING, no services, an id stable per website', async () => {
    const res = await site.call({ method: 'GET', url: '/v1/fulfillments/fulfillment-options' });
    assert.equal(res.statusCode, 200);
    const options = res.json().fulfillmentOptions;
    assert.deepEqual(options, [
      {
        id: standardShippingId(site.websiteId),
        name: 'Standard Shipping',
        type: 'SHIPPING',
        availableServices: [],
      },
    ]);
    assert.match(options[0]!.id, /^[0-9a-f]{24}$/);
    const again = await site.call({ method: 'GET', url: '/v1/fulfillments/fulfillment-options' });
    assert.deepEqual(again.json().fulfillmentOptions, options);
    const stranger = await ctx.site();
    const theirs = (
      await stranger.call({ method: 'GET', url: '/v1/fulfillments/fulfillment-options' })
    ).json();
    assert.notEqual(theirs.fulfillmentOptions[0].id, options[0]!.id);
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
