import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductV2, ProductV2List } from '../src/catalog/v2/products-v2.schemas.ts';
import { createProduct, digital, money, physical } from './helpers/factories.ts';
import { PRODUCT_KEYS, productsV2Calls, sku, V2, VARIANT_KEYS, type Json } from './helpers/products-v2.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Products v2 (platform-surface 2.5): the shape and creation rules of each type, the list and get.
 * Updates, deletes, variants and images are in products-v2.update.test.ts.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const { call, invalid, bodies, created, get } = productsV2Calls(() => site);

describe('the shape of each type (2.5.1), field by field', () => {
  test('PHYSICAL: variantAttributes and variants with stock, shippingMeasurements, gtin and mpn', async () => {
    const product = await created(bodies.PHYSICAL({ tags: ['linen'], isVisible: true }));
    assertShape(ProductV2, product);
    assert.deepEqual(Object.keys(product), PRODUCT_KEYS.PHYSICAL);
    assert.equal(product.type, 'PHYSICAL');
    assert.equal(product.url, `${BASE_URL}/s/${site.websiteId}/shop/p/linen-shirt`);
    assert.deepEqual(product.variantAttributes, ['Size']);
    const [v] = product.variants;
    assert.deepEqual(Object.keys(v), VARIANT_KEYS.PHYSICAL);
    assert.deepEqual(v.pricing, { basePrice: money('40.00'), salePrice: money('30.00'), onSale: true });
    assert.deepEqual(v.stock, { quantity: 3, unlimited: false });
    assert.deepEqual(v.shippingMeasurements, {
      weight: { unit: 'POUND', value: 1.5 },
      dimensions: { unit: 'INCH', length: 0, width: 0, height: 0 },
    });
    assert.equal(v.gtin, '0123-4567-8901-28');
    assert.equal(v.mpn, 'MPN-1234');
    assert.equal(v.image, null);
    assert.equal(product.createdOn, product.modifiedOn);
  });

  test('SERVICE: variants with stock and attributes, no shippingMeasurements, gtin or mpn', async () => {
    const product = await created(bodies.SERVICE());
    assertShape(ProductV2, product);
    assert.deepEqual(Object.keys(product), PRODUCT_KEYS.SERVICE);
    assert.deepEqual(
      product.variants.map((v: Json) => Object.keys(v)),
      [VARIANT_KEYS.SERVICE, VARIANT_KEYS.SERVICE],
    );
    assert.deepEqual(product.variants[0].stock, { quantity: 0, unlimited: false });
    assert.deepEqual(product.variants[1].stock, { quantity: 0, unlimited: true });
    assert.deepEqual(product.variants[1].pricing, {
      basePrice: money('45.00'),
      salePrice: money('0.00'),
      onSale: false,
    });
  });

  test('GIFT_CARD: no variantAttributes; each variant a denomination with a basePrice only', async () => {
    const product = await created(bodies.GIFT_CARD());
    assertShape(ProductV2, product);
    assert.deepEqual(Object.keys(product), PRODUCT_KEYS.GIFT_CARD);
    for (const v of product.variants) assert.deepEqual(Object.keys(v), VARIANT_KEYS.GIFT_CARD);
    assert.deepEqual(
      product.variants.map((v: Json) => v.pricing),
      [{ basePrice: money('25.00') }, { basePrice: money('50.00') }],
    );
  });

  test('DIGITAL (made through 1.1): product-level pricing and digitalGood, no variants', async () => {
    const made = await createProduct(site, digital(site, { name: 'Pattern' }));
    const product = (await get(made.id))!;
    assertShape(ProductV2, product);
    assert.deepEqual(Object.keys(product), PRODUCT_KEYS.DIGITAL);
    assert.deepEqual(product.pricing, made.pricing);
    assert.equal(product.digitalGood, null);
  });
});

describe('creation rules of each type', () => {
  test('DIGITAL cannot be created through v2: 405, nothing stored', async () => {
    const before = await countProducts();
    const res = await call('POST', V2, { ...digital(site), name: 'Refused' });
    assertError(res, 405, 'METHOD_NOT_ALLOWED', 'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE', /DIGITAL/);
    assert.equal(await countProducts(), before);
  });

  test('a field of another type is a 400 naming the field and the type, and nothing is stored', async () => {
    const before = await countProducts();
    const [physicalVariant] = bodies.PHYSICAL().variants;
    const cases: [Json, RegExp][] = [
      [
        bodies.SERVICE({ variants: [{ ...physicalVariant, attributes: { Length: 'x' } }] }),
        /^variants\[0\]\.shippingMeasurements: a SERVICE product's variants have no shippingMeasurements$/,
      ],
      [
        bodies.SERVICE({
          variants: [{ sku: sku('S'), pricing: { basePrice: money('1') }, gtin: '12345670' }],
        }),
        /^variants\[0\]\.gtin: a SERVICE product's variants have no gtin$/,
      ],
      [
        bodies.GIFT_CARD({ variantAttributes: ['Amount'] }),
        /^variantAttributes: a GIFT_CARD product has no variantAttributes$/,
      ],
      [
        bodies.GIFT_CARD({
          variants: [{ sku: sku('G'), pricing: { basePrice: money('5') }, stock: { quantity: 1 } }],
        }),
        /^variants\[0\]\.stock: a GIFT_CARD product's variants have no stock$/,
      ],
      [
        bodies.GIFT_CARD({
          variants: [{ sku: sku('G'), pricing: { basePrice: money('5') }, attributes: {} }],
        }),
        /^variants\[0\]\.attributes: a GIFT_CARD product's variants have no attributes$/,
      ],
      [
        bodies.GIFT_CARD({
          variants: [
            { sku: sku('G'), pricing: { basePrice: money('5'), salePrice: money('4'), onSale: true } },
          ],
        }),
        /^variants\[0\]\.pricing\.salePrice: a GIFT_CARD product's variants have a basePrice only$/,
      ],
      [
        bodies.PHYSICAL({ pricing: { basePrice: money('5') } }),
        /^pricing: a PHYSICAL product has no product-level pricing/,
      ],
      [
        bodies.SERVICE({ pricing: { basePrice: money('5') } }),
        /^pricing: a SERVICE product has no product-level pricing/,
      ],
    ];
    for (const [body, message] of cases) invalid(await call('POST', V2, body), message);
    assert.equal(await countProducts(), before);
  });

  test('variants are required and bounded; two or more attributed variants need variantAttributes', async () => {
    invalid(
      await call('POST', V2, bodies.SERVICE({ variants: undefined })),
      /^variants: is required for SERVICE products$/,
      'MISSING_ARGUMENT',
    );
    invalid(await call('POST', V2, bodies.GIFT_CARD({ variants: [] })), /^variants: 1 to 100 items$/);
    invalid(
      await call('POST', V2, bodies.SERVICE({ variantAttributes: undefined })),
      /^variantAttributes: required when a product has two or more variants$/,
      'MISSING_ARGUMENT',
    );
    const tooMany = Array.from({ length: 101 }, () => ({
      sku: sku('G'),
      pricing: { basePrice: money('5') },
    }));
    assert.equal((await call('POST', V2, bodies.GIFT_CARD({ variants: tooMany }))).statusCode, 400);
  });

  test('an unknown type is a 400', async () => {
    invalid(await call('POST', V2, bodies.PHYSICAL({ type: 'DOWNLOAD' })), /type/);
  });

  test('gtin: 8, 12, 13 or 14 digits once spaces, - and _ are removed; mpn: up to 70 letters and digits', async () => {
    const withIds = (ids: Json) =>
      bodies.PHYSICAL({ variants: [{ ...bodies.PHYSICAL().variants[0], ...ids }] });
    for (const gtin of ['12345670', '012345678905', '4006381333931', '0 1234_5678-90128'])
      assert.equal((await call('POST', V2, withIds({ gtin, mpn: null }))).statusCode, 201, gtin);
    for (const gtin of ['1234567', '123456789', '0123456789012345', 'ABCDEFGH', ''])
      invalid(
        await call('POST', V2, withIds({ gtin })),
        /^variants\[0\]\.gtin: a GTIN has 8, 12, 13 or 14 digits/,
      );
    assert.equal((await call('POST', V2, withIds({ mpn: `${'A'.repeat(69)}-1` }))).statusCode, 201);
    for (const mpn of ['A'.repeat(71), 'MPN#1', ' - '])
      invalid(
        await call('POST', V2, withIds({ mpn })),
        /^variants\[0\]\.mpn: an MPN is 1 to 70 letters and digits/,
      );
  });
});

async function countProducts(): Promise<number> {
  const row = await ctx.db
    .selectFrom('products')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('website_id', '=', site.websiteId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('list and get', () => {
  test('the list has every type by default, filters by type and query, and pages with its own cursor', async () => {
    const other = await ctx.site();
    const make = (body: Json) =>
      other.call({ method: 'POST', url: V2, payload: { ...body, storePageId: other.storePageId } });
    for (const body of [bodies.PHYSICAL({ name: 'Wool Coat' }), bodies.SERVICE(), bodies.GIFT_CARD()])
      assert.equal((await make(body)).statusCode, 201);
    await createProduct(other, digital(other, { name: 'Coat Pattern' }));
    const list = async (query: string) => {
      const res = await other.call({ method: 'GET', url: `${V2}${query}` });
      assert.equal(res.statusCode, 200, res.body);
      assertShape(ProductV2List, res.json());
      return res.json() as { products: Json[]; pagination: Json };
    };
    const all = await list('');
    assert.deepEqual(
      all.products.map((p) => p.type),
      ['PHYSICAL', 'SERVICE', 'GIFT_CARD', 'DIGITAL'],
    );
    assert.deepEqual(all.pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
    assert.deepEqual(
      (await list('?type=SERVICE,GIFT_CARD')).products.map((p) => p.type),
      ['SERVICE', 'GIFT_CARD'],
    );
    assert.deepEqual(
      (await list('?type=DIGITAL&type=PHYSICAL')).products.map((p) => p.type),
      ['PHYSICAL', 'DIGITAL'],
    );
    assert.deepEqual(
      (await list('?query=coat')).products.map((p) => p.name),
      ['Wool Coat', 'Coat Pattern'],
    );
    invalid(
      await other.call({ method: 'GET', url: `${V2}?type=DOWNLOAD` }),
      /^type: unknown product type "DOWNLOAD"; use PHYSICAL, SERVICE, GIFT_CARD, DIGITAL$/,
    );
  });

  test('pages of 50 follow the cursor to the end; a 1.1 cursor is refused', async () => {
    const other = await ctx.site();
    for (let i = 0; i < 52; i++) {
      const res = await other.call({
        method: 'POST',
        url: V2,
        payload: { ...bodies.GIFT_CARD(), storePageId: other.storePageId },
      });
      assert.equal(res.statusCode, 201);
    }
    const first = (await other.call({ method: 'GET', url: V2 })).json();
    assert.equal(first.products.length, 50);
    assert.equal(first.pagination.hasNextPage, true);
    assert.equal(
      first.pagination.nextPageUrl,
      `${BASE_URL}${V2}?cursor=${encodeURIComponent(first.pagination.nextPageCursor)}`,
    );
    const second = (
      await other.call({
        method: 'GET',
        url: `${V2}?cursor=${encodeURIComponent(first.pagination.nextPageCursor)}`,
      })
    ).json();
    assert.equal(second.products.length, 2);
    assert.equal(second.pagination.hasNextPage, false);
    // The same website's 1.1 list shows no GIFT_CARD: it has no page, and no cursor of its own to lend.
    const legacy = (await other.call({ method: 'GET', url: '/1.1/commerce/products' })).json();
    assert.deepEqual(legacy.products, []);
    await createProduct(other, physical(other));
    await createProduct(other, physical(other));
    const oneOne = await other.call({ method: 'GET', url: '/1.1/commerce/products' });
    assert.equal(oneOne.json().products.length, 2);
    invalid(
      await other.call({
        method: 'GET',
        url: `/1.1/commerce/products?cursor=${encodeURIComponent(first.pagination.nextPageCursor)}`,
      }),
      /cursor/,
    );
  });

  test('get by ids answers {products} in the order asked; an unknown id is a 404', async () => {
    const a = await created(bodies.GIFT_CARD());
    const b = await created(bodies.SERVICE());
    const res = await call('GET', `${V2}/${b.id},${a.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Object.keys(res.json()), ['products']);
    assert.deepEqual(res.json().products, [b, a]);
    assertError(
      await call('GET', `${V2}/${a.id},ffffffffffffffffffffffff`),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    invalid(await call('GET', `${V2}/${Array.from({ length: 51 }, (_, i) => i).join(',')}`), /at most 50/);
  });
});
