import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { standardShippingId } from '../src/discounts/fulfillment-options.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { body, code, DAY, discountCalls, DISCOUNTS as PATH, invalid, usd } from './helpers/discounts.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { withCredential } from './helpers/inventory.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Discounts v1 (platform-surface 2.7): create, get, replace, delete, who may, and the fulfillment
 * options. The refusals and a cart's live discounts are in discounts.rules.test.ts.
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

const { create, created, get } = discountCalls(
  () => ctx,
  () => site,
);

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
