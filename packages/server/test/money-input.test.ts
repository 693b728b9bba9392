import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DISCOUNTS } from './helpers/checkout-discounts.ts';
import { createProduct, money, physical, variant } from './helpers/factories.ts';
import { importBody, importOrder, line } from './helpers/orders.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Money as clients generated from the platform's API document send it, a number and a currency
 * object (platform-surface 0.4), on every money input of every API; answers carry strings.
 */
let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

/** The generated document's form of an amount. */
const generated = (value: number, currencyCode = 'USD') => ({
  currency: { currencyCode, defaultFractionDigits: 2, displayName: 'US Dollar', symbol: '$' },
  value,
});
const wrap = (value: unknown) => ({ present: true, value });
const V11 = '/1.1/commerce/products';
const V2 = '/v2/commerce/products';

/** Money inputs a client may not send, with what the answer names. */
const REFUSED: [unknown, RegExp][] = [
  [{ currency: 840, value: '1.00' }, /basePrice\.currency: must be a string or an object/],
  [{ currency: {}, value: '1.00' }, /basePrice\.currency\.currencyCode: is required/],
  [{ currency: { currencyCode: 'EUR' }, value: 1 }, /basePrice\.currency: must be the website currency USD/],
  [{ currency: 'USD', value: true }, /basePrice\.value: must be a string or a number/],
  [{ currency: 'USD', value: -1 }, /basePrice\.value: must be a decimal/],
  [{ currency: 'USD', value: 1e21 }, /basePrice\.value: must be a decimal/],
  [{ currency: 'USD', value: 12.345 }, /basePrice\.value: USD allows at most 2 decimal places/],
  [{ currency: 'USD', value: 1_000_001 }, /basePrice\.value: at most 1000000/],
  [{ currency: 'USD' }, /basePrice\.value: is required/],
];

async function productCount(): Promise<number> {
  const rows = await ctx.db.selectFrom('products').select('id').execute();
  return rows.length;
}

describe('money as the generated API document spells it', () => {
  test('products 1.1: created and repriced with numbers and currency objects, answered in strings', async () => {
    const created = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size'],
        variants: [
          variant('GEN-1', {
            attributes: { Size: 'S' },
            pricing: { basePrice: generated(12), salePrice: generated(9.5) },
          }),
        ],
      }),
    );
    assert.deepEqual(created.variants[0].pricing, {
      basePrice: money('12.00'),
      salePrice: money('9.50'),
      onSale: false,
    });
    const updated = await site.call({
      method: 'POST',
      url: `${V11}/${created.id}/variants/${created.variants[0].id}`,
      payload: { pricing: wrap({ basePrice: wrap(generated(14.25)), onSale: wrap(false) }) },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(updated.json().pricing.basePrice, money('14.25'));
    const added = await site.call({
      method: 'POST',
      url: `${V11}/${created.id}/variants`,
      payload: { sku: 'GEN-2', attributes: { Size: 'M' }, pricing: { basePrice: generated(3) } },
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.deepEqual(added.json().pricing.basePrice, money('3.00'));
  });

  test('products 1.0 and a DIGITAL product’s own pricing take them too', async () => {
    const res = await site.call({
      method: 'POST',
      url: '/1.0/commerce/products',
      payload: {
        type: 'DIGITAL',
        storePageId: site.storePageId,
        name: 'E-book',
        pricing: { basePrice: generated(5) },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().pricing.basePrice, money('5.00'));
    const repriced = await site.call({
      method: 'POST',
      url: `/1.0/commerce/products/${res.json().id}`,
      payload: { pricing: wrap({ basePrice: generated(6.5) }) },
    });
    assert.equal(repriced.statusCode, 200, repriced.body);
    assert.deepEqual(repriced.json().pricing.basePrice, money('6.50'));
  });

  test('products v2: created with variants and repriced, a variant added and changed', async () => {
    const res = await site.call({
      method: 'POST',
      url: V2,
      payload: {
        type: 'SERVICE',
        storePageId: site.storePageId,
        name: 'Lesson',
        variantAttributes: ['Length'],
        variants: [{ sku: 'GEN-V2-1', attributes: { Length: '1h' }, pricing: { basePrice: generated(40) } }],
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const product = res.json();
    assert.deepEqual(product.variants[0].pricing.basePrice, money('40.00'));
    const added = await site.call({
      method: 'POST',
      url: `${V2}/${product.id}/variants`,
      payload: { sku: 'GEN-V2-2', attributes: { Length: '2h' }, pricing: { basePrice: generated(75.5) } },
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.deepEqual(added.json().pricing.basePrice, money('75.50'));
    const changed = await site.call({
      method: 'POST',
      url: `${V2}/${product.id}/variants/${added.json().id}`,
      payload: { pricing: wrap({ basePrice: wrap(generated(70)), salePrice: generated(60), onSale: true }) },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().pricing.salePrice, money('60.00'));
  });

  test('orders: imported with every amount in the generated form', async () => {
    const product = await createProduct(site, physical(site));
    const body = importBody([line(product.variants[0].id, 2, '10.00')]);
    const res = await importOrder(site, {
      ...body,
      lineItems: [{ ...body.lineItems[0], unitPricePaid: generated(10) }],
      subtotal: generated(20),
      shippingLines: [{ method: 'Post', amount: generated(4.5) }],
      shippingTotal: generated(4.5),
      grandTotal: generated(24.5),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().grandTotal, money('24.50'));
    assert.deepEqual(res.json().lineItems[0].unitPricePaid, money('10.00'));
  });

  test('discounts: a fixed amount off carts from a minimum total', async () => {
    const res = await site.call({
      method: 'POST',
      url: DISCOUNTS,
      payload: {
        name: '5 off 50',
        criteria: { type: 'CART_TOTAL', minimumCartTotal: generated(50) },
        template: { type: 'FIXED_AMOUNT', discountAmount: generated(5) },
        trigger: { type: 'AUTO' },
        validFrom: '2025-01-01T00:00:00Z',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { discount } = res.json();
    assert.deepEqual(discount.criteria.minimumCartTotal, money('50.00'));
    assert.deepEqual(discount.template.discountAmount, money('5.00'));
  });

  test('anything else is a 400 naming the field, and changes nothing', async () => {
    const product = await createProduct(site, physical(site));
    const target = product.variants[0];
    const before = await productCount();
    for (const [basePrice, message] of REFUSED) {
      const label = JSON.stringify(basePrice);
      const created = await site.call({
        method: 'POST',
        url: V11,
        payload: physical(site, { variants: [variant('BAD-1', { pricing: { basePrice } })] }),
      });
      assertError(created, 400, 'INVALID_REQUEST_ERROR', created.json().subtype, message);
      const v2 = await site.call({
        method: 'POST',
        url: `${V2}/${product.id}/variants/${target.id}`,
        payload: { pricing: wrap({ basePrice: wrap(basePrice) }) },
      });
      assertError(v2, 400, 'INVALID_REQUEST_ERROR', v2.json().subtype, message);
      const discount = await site.call({
        method: 'POST',
        url: DISCOUNTS,
        payload: {
          name: 'bad',
          criteria: { type: 'ANY_ORDER' },
          template: { type: 'FIXED_AMOUNT', discountAmount: basePrice },
          trigger: { type: 'AUTO' },
          validFrom: '2025-01-01T00:00:00Z',
        },
      });
      assert.equal(discount.statusCode, 400, `${label}: ${discount.body}`);
      assert.match(discount.json().message, /^template\.discountAmount/, label);
    }
    assert.equal(await productCount(), before);
    const unchanged = await site.call({ method: 'GET', url: `${V11}/${product.id}` });
    assert.deepEqual(unchanged.json().products[0].variants[0].pricing, target.pricing);
    const discounts = await site.call({ method: 'GET', url: DISCOUNTS });
    assert.equal(discounts.json().discounts.filter((d: { name: string }) => d.name === 'bad').length, 0);
  });
});
