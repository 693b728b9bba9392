import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DiscountT } from '../src/discounts/discounts.schemas.ts';
import { standardShippingId } from '../src/discounts/fulfillment-options.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** The owner's discount pages: list, create and edit forms, disable and enable, delete. */

const PATH = '/v1/commerce/discounts';
let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

const form = (overrides: Record<string, string> = {}) => ({
  name: 'Spring sale',
  trigger: 'CODE',
  promoCode: 'SPRING10',
  criteriaType: 'ANY_ORDER',
  templateType: 'PERCENTAGE',
  percentage: '10',
  fulfillmentType: 'SHIPPING',
  validFrom: '2025-12-01T00:00',
  validTo: '',
  ...overrides,
});

async function apiDiscounts(site: Site) {
  const res = await site.call({ method: 'GET', url: `${PATH}?status=ALL` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().discounts as DiscountT[];
}

async function createByForm(site: Site, overrides: Record<string, string> = {}) {
  const browser = await signedInOwner(ctx, site);
  await browser.get(`/sites/${site.websiteId}/discounts/new`);
  const res = await browser.post(`/sites/${site.websiteId}/discounts`, {
    csrf: browser.csrf,
    ...form(overrides),
  });
  assert.equal(res.statusCode, 303, res.body);
  return browser;
}

describe('create and list', () => {
  test('a code discount made by the form is the API’s discount, and the list shows its name, code, type, status, uses', async () => {
    const site = await ctx.site();
    const browser = await createByForm(site);
    const [d] = await apiDiscounts(site);
    assert.equal(d!.name, 'Spring sale');
    assert.deepEqual(d!.trigger, { type: 'CODE', promoCode: 'SPRING10' });
    assert.deepEqual(d!.template, { type: 'PERCENTAGE', percentage: 10 });
    assert.equal(d!.validFrom.slice(0, 16), '2025-12-01T00:00');
    const list = await browser.get(`/sites/${site.websiteId}/discounts?created=1`);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /Discount created\./);
    assert.match(list.body, /Spring sale/);
    assert.match(list.body, /<code>SPRING10<\/code>/);
    assert.match(list.body, /Percentage off/);
    assert.match(list.body, /Active/);
    const home = await browser.get(`/sites/${site.websiteId}`);
    assert.ok(home.body.includes(`href="/sites/${site.websiteId}/discounts"`));
  });

  test('every type the API serves can be made: cart total + fixed amount, product, buy X get Y, free shipping, automatic', async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site, { name: 'Linen Shirt' }));
    await createByForm(site, {
      name: 'Big cart',
      trigger: 'AUTO',
      promoCode: '',
      criteriaType: 'CART_TOTAL',
      minimumCartTotal: '50.00',
      templateType: 'FIXED_AMOUNT',
      discountAmount: '5.00',
      isLimitedUses: 'on',
      maxUsesAllowed: '3',
      isOncePerCustomer: 'on',
      validTo: '2027-01-01T00:00',
    });
    await createByForm(site, {
      name: 'Shirt',
      promoCode: 'SHIRT',
      criteriaType: 'PRODUCT',
      productId: product.id,
    });
    await createByForm(site, {
      name: 'Two for one',
      promoCode: 'TWO',
      criteriaType: 'BUY_X_GET_Y',
      requiredFullPriceQuantity: '1',
      eligibleForDiscountQuantity: '1',
      criteriaProductIds: product.id,
      rewardProductIds: product.id,
      templateType: 'BUY_X_GET_Y_PERCENTAGE',
      percentage: '100',
      maxApplicationsPerCart: '2',
    });
    await createByForm(site, { name: 'Ship free', promoCode: 'SHIP', templateType: 'FREE_SHIPPING' });
    const byName = Object.fromEntries((await apiDiscounts(site)).map((d) => [d.name, d]));
    assert.deepEqual(byName['Big cart']!.trigger, { type: 'AUTO' });
    assert.deepEqual(byName['Big cart']!.criteria, {
      type: 'CART_TOTAL',
      minimumCartTotal: { currency: 'USD', value: '50.00' },
    });
    assert.deepEqual(byName['Big cart']!.template, {
      type: 'FIXED_AMOUNT',
      discountAmount: { currency: 'USD', value: '5.00' },
    });
    assert.equal(byName['Big cart']!.maxUsesAllowed, 3);
    assert.equal(byName['Big cart']!.isOncePerCustomer, true);
    assert.equal(byName['Big cart']!.validTo?.slice(0, 16), '2027-01-01T00:00');
    assert.deepEqual(byName['Shirt']!.criteria, {
      type: 'PRODUCT',
      productId: product.id,
      productName: 'Linen Shirt',
    });
    assert.deepEqual(byName['Two for one']!.template, {
      type: 'BUY_X_GET_Y_PERCENTAGE',
      discountPercentage: 100,
      maxApplicationsPerCart: 2,
    });
    assert.equal(byName['Ship free']!.template.type, 'FREE_SHIPPING');
  });

  test('a refused form is shown again with the message beside its field and the values kept; nothing is stored', async () => {
    const site = await ctx.site();
    const browser = await signedInOwner(ctx, site);
    await browser.get(`/sites/${site.websiteId}/discounts/new`);
    const url = `/sites/${site.websiteId}/discounts`;
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ percentage: '150' }, 'percentage', /100/],
      [{ promoCode: 'no spaces' }, 'promoCode', /letters, digits/],
      [{ criteriaType: 'CART_TOTAL', minimumCartTotal: '' }, 'minimumCartTotal', /is required/],
      [{ validTo: '2025-11-01T00:00' }, 'validTo', /later than validFrom/],
      [
        { templateType: 'FREE_SHIPPING', criteriaType: 'PRODUCT', productId: 'x' },
        'templateType',
        /cannot go with/,
      ],
      [{ isLimitedUses: 'on', maxUsesAllowed: '' }, 'maxUsesAllowed', /required/],
      [{ name: '' }, 'name', /./],
    ];
    for (const [overrides, fieldName, message] of cases) {
      const res = await browser.post(url, {
        csrf: browser.csrf,
        ...form({ name: 'Kept name', ...overrides }),
      });
      assert.equal(res.statusCode, 400, `${fieldName}: ${res.body}`);
      const error = new RegExp(`id="discount-${fieldName}-error"[^>]*>([^<]*)<`).exec(res.body);
      assert.ok(error, `an error beside ${fieldName}`);
      assert.match(error[1]!, message);
      assert.match(res.body, new RegExp(`aria-describedby="[^"]*discount-${fieldName}-error`));
      if (overrides.name !== '') assert.match(res.body, /value="Kept name"/);
    }
    await createByForm(site);
    const taken = await browser.post(url, { csrf: browser.csrf, ...form({ promoCode: 'spring10' }) });
    assert.equal(taken.statusCode, 409);
    assert.match(taken.body, /id="discount-promoCode-error"[^>]*>another discount/);
    assert.equal((await apiDiscounts(site)).length, 1);
  });
});

describe('edit, disable, delete', () => {
  test('the edit form shows the discount and saves through the API’s replace', async () => {
    const site = await ctx.site();
    const browser = await createByForm(site);
    const [d] = await apiDiscounts(site);
    const page = await browser.get(`/sites/${site.websiteId}/discounts/${d!.id}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /value="SPRING10"/);
    const saved = await browser.post(`/sites/${site.websiteId}/discounts/${d!.id}`, {
      csrf: browser.csrf,
      ...form({ name: 'Summer sale', percentage: '12.5' }),
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const [after] = await apiDiscounts(site);
    assert.equal(after!.id, d!.id);
    assert.equal(after!.name, 'Summer sale');
    assert.deepEqual(after!.template, { type: 'PERCENTAGE', percentage: 12.5 });
    const bad = await browser.post(`/sites/${site.websiteId}/discounts/${d!.id}`, {
      csrf: browser.csrf,
      ...form({ percentage: '0' }),
    });
    assert.equal(bad.statusCode, 400);
    assert.deepEqual((await apiDiscounts(site))[0]!.template, { type: 'PERCENTAGE', percentage: 12.5 });
  });

  test('saving the form keeps what it does not show: subscription and payment plan options, the chosen shipping option', async () => {
    const site = await ctx.site();
    const option = { shippingOptionId: standardShippingId(site.websiteId), shippingOptionName: 'x' };
    const made = await site.call({
      method: 'POST',
      url: PATH,
      payload: {
        name: 'Ship free',
        criteria: { type: 'ANY_ORDER' },
        template: { type: 'FREE_SHIPPING', selectedShippingOption: option },
        trigger: { type: 'CODE', promoCode: 'SHIPFREE' },
        validFrom: '2025-12-01T00:00:00Z',
        subscriptionOptions: { type: 'ALL_PAYMENTS' },
        paymentPlanOptions: { type: 'ALL_PAYMENTS' },
      },
    });
    assert.equal(made.statusCode, 201, made.body);
    const before = made.json().discount as DiscountT;
    const browser = await signedInOwner(ctx, site);
    const url = `/sites/${site.websiteId}/discounts/${before.id}`;
    await browser.get(url);
    const saved = await browser.post(url, {
      csrf: browser.csrf,
      ...form({ name: 'Ship free now', promoCode: 'SHIPFREE', templateType: 'FREE_SHIPPING' }),
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const [after] = await apiDiscounts(site);
    assert.equal(after!.name, 'Ship free now');
    assert.deepEqual(after!.template, before.template);
    assert.deepEqual(after!.subscriptionOptions, { type: 'ALL_PAYMENTS' });
    assert.deepEqual(after!.paymentPlanOptions, { type: 'ALL_PAYMENTS' });
  });

  test('disable ends the discount now (the API shows EXPIRED with validTo); enable clears the end', async () => {
    const site = await ctx.site();
    const browser = await createByForm(site);
    const [d] = await apiDiscounts(site);
    const off = await browser.post(`/sites/${site.websiteId}/discounts/${d!.id}/disable`, {
      csrf: browser.csrf,
    });
    assert.equal(off.statusCode, 303);
    const [disabled] = await apiDiscounts(site);
    assert.equal(disabled!.status, 'EXPIRED');
    assert.ok(disabled!.validTo);
    const list = await browser.get(`/sites/${site.websiteId}/discounts`);
    assert.match(list.body, /Expired/);
    assert.match(list.body, /aria-label="Enable Spring sale"/);
    const on = await browser.post(`/sites/${site.websiteId}/discounts/${d!.id}/enable`, {
      csrf: browser.csrf,
    });
    assert.equal(on.statusCode, 303);
    const [enabled] = await apiDiscounts(site);
    assert.equal(enabled!.status, 'ACTIVE');
    assert.equal(enabled!.validTo, null);

    // One not yet started is disabled too: it starts and ends now.
    const future = new Date(ctx.clock.now().getTime() + 86_400_000).toISOString().slice(0, 16);
    await createByForm(site, { name: 'Later', promoCode: 'LATER', validFrom: future });
    const later = (await apiDiscounts(site)).find((x) => x.name === 'Later')!;
    assert.equal(later.status, 'SCHEDULED');
    await browser.post(`/sites/${site.websiteId}/discounts/${later.id}/disable`, { csrf: browser.csrf });
    assert.equal((await apiDiscounts(site)).find((x) => x.name === 'Later')!.status, 'EXPIRED');
  });

  test('enabling a discount whose uses ran out says so; it stays EXPIRED', async () => {
    const site = await ctx.site();
    const browser = await createByForm(site, { isLimitedUses: 'on', maxUsesAllowed: '2' });
    const [d] = await apiDiscounts(site);
    // Two orders' worth of uses, as checkout counts them.
    await ctx.db.updateTable('discounts').set({ number_of_uses: 2 }).where('id', '=', d!.id).execute();
    const list = await browser.get(`/sites/${site.websiteId}/discounts`);
    assert.match(list.body, /<td>2 of 2<\/td>/);
    const on = await browser.post(`/sites/${site.websiteId}/discounts/${d!.id}/enable`, {
      csrf: browser.csrf,
    });
    assert.equal(on.headers.location, `/sites/${site.websiteId}/discounts?usedUp=1`);
    const shown = await browser.get(String(on.headers.location));
    assert.match(shown.body, /has used all its uses/);
    assert.equal((await apiDiscounts(site))[0]!.status, 'EXPIRED');
  });

  test('delete asks first; only the confirmation deletes', async () => {
    const site = await ctx.site();
    const browser = await createByForm(site);
    const [d] = await apiDiscounts(site);
    const url = `/sites/${site.websiteId}/discounts/${d!.id}/delete`;
    const ask = await browser.get(url);
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /Yes, delete/);
    const unconfirmed = await browser.post(url, { csrf: browser.csrf });
    assert.equal(unconfirmed.statusCode, 303);
    assert.equal((await apiDiscounts(site)).length, 1);
    const done = await browser.post(url, { csrf: browser.csrf, confirm: 'yes' });
    assert.equal(done.statusCode, 303);
    assert.equal((await apiDiscounts(site)).length, 0);
  });
});

describe('refusals', () => {
  test('without the CSRF token: 403 and nothing changes', async () => {
    const site = await ctx.site();
    const browser = await createByForm(site);
    const [d] = await apiDiscounts(site);
    const base = `/sites/${site.websiteId}/discounts`;
    assert.equal((await browser.post(base, form({ promoCode: 'OTHER' }))).statusCode, 403);
    assert.equal((await browser.post(`${base}/${d!.id}/disable`, {})).statusCode, 403);
    assert.equal((await browser.post(`${base}/${d!.id}/delete`, { confirm: 'yes' })).statusCode, 403);
    assert.equal((await browser.post(`${base}/${d!.id}`, form({ name: 'Changed' }))).statusCode, 403);
    const after = await apiDiscounts(site);
    assert.equal(after.length, 1);
    assert.equal(after[0]!.name, 'Spring sale');
    assert.equal(after[0]!.status, 'ACTIVE');
  });

  test('another owner’s site or discount is 404 and untouched', async () => {
    const site = await ctx.site();
    const stranger = await ctx.site();
    await createByForm(stranger);
    const [theirs] = await apiDiscounts(stranger);
    const browser = await signedInOwner(ctx, site);
    await browser.get(`/sites/${site.websiteId}/discounts`);
    const csrf = browser.csrf;
    const foreign = `/sites/${stranger.websiteId}/discounts`;
    assert.equal((await browser.get(foreign)).statusCode, 404);
    assert.equal((await browser.post(foreign, { csrf, ...form() })).statusCode, 404);
    assert.equal((await browser.get(`/sites/${site.websiteId}/discounts/${theirs!.id}`)).statusCode, 404);
    const own = `/sites/${site.websiteId}/discounts/${theirs!.id}`;
    assert.equal((await browser.post(`${own}/disable`, { csrf })).statusCode, 404);
    assert.equal((await browser.post(`${own}/delete`, { csrf, confirm: 'yes' })).statusCode, 404);
    assert.equal(
      (await browser.post(`${foreign}/${theirs!.id}/delete`, { csrf, confirm: 'yes' })).statusCode,
      404,
    );
    assert.equal((await apiDiscounts(stranger))[0]!.status, 'ACTIVE');
  });
});
