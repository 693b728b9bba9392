import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Product } from '../src/catalog/products.schemas.ts';
import { ProductV2 } from '../src/catalog/v2/products-v2.schemas.ts';
import { createProduct, money, multipartFile, physical, variant } from './helpers/factories.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** One store, three versions: what 1.0, 1.1 and v2 show of the same products (docs/products.md). */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp();
  site = await ctx.site();
});
after(() => ctx.close());

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, on = site) =>
  on.call({ method, url, ...(payload !== undefined && { payload: payload as object }) });

async function read(version: string, id: string, on = site): Promise<Json> {
  const res = await call('GET', `/${version}/commerce/products/${id}`, undefined, on);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0];
}

let n = 0;
async function createV2(body: Json, on = site): Promise<Json> {
  const res = await call('POST', '/v2/commerce/products', { storePageId: on.storePageId, ...body }, on);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}
const service = () => ({
  type: 'SERVICE',
  name: `Lesson ${++n}`,
  variants: [{ sku: `LESSON-${n}`, pricing: { basePrice: money('30') }, stock: { quantity: 4 } }],
});
const giftCard = () => ({
  type: 'GIFT_CARD',
  name: `Card ${++n}`,
  variants: [{ sku: `CARD-${n}`, pricing: { basePrice: money('20') } }],
});

describe('a PHYSICAL product is the same product in every version', () => {
  test('made through 1.1, read through v2: the v2 shape of the same state', async () => {
    const made = await createProduct(
      site,
      physical(site, { variants: [variant('CROSS-1', { stock: { quantity: 2 } })] }),
    );
    const v2 = await read('v2', made.id);
    assertShape(ProductV2, v2);
    assert.equal(v2.modifiedOn, made.modifiedOn);
    const [v] = v2.variants;
    assert.deepEqual(v.shippingMeasurements, made.variants[0].shippingMeasurements);
    assert.deepEqual([v.gtin, v.mpn], [null, null]);
    assert.equal('measurements' in v, false);
    assert.equal('pricing' in v2, false);
  });

  test('made through v2, read through 1.1 and 1.0: every 1.1 key, gtin and mpn not among them', async () => {
    const made = await createV2({
      type: 'PHYSICAL',
      name: 'Cross Mug',
      variants: [{ sku: 'CROSS-2', pricing: { basePrice: money('9') }, gtin: '12345670' }],
    });
    for (const version of ['1.1', '1.0']) {
      const legacy = await read(version, made.id);
      assertShape(Product, legacy);
      assert.deepEqual([legacy.pricing, legacy.digitalGood], [null, null]);
      assert.equal('gtin' in legacy.variants[0], false);
      assert.equal(legacy.modifiedOn, made.modifiedOn);
    }
  });

  test('a write through either version is read at once through the other, with one modifiedOn', async () => {
    const made = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size'],
        variants: [variant('CROSS-3', { attributes: { Size: 'S' } })],
      }),
    );
    await read('v2', made.id); // both renderings cached
    const renamed = await call('POST', `/v2/commerce/products/${made.id}`, { name: 'Renamed in v2' });
    assert.equal(renamed.statusCode, 200);
    const legacy = await read('1.1', made.id);
    assert.equal(legacy.name, 'Renamed in v2');
    assert.equal(legacy.modifiedOn, renamed.json().modifiedOn);
    assert.ok(legacy.modifiedOn > made.modifiedOn);

    const added = await call('POST', `/1.1/commerce/products/${made.id}/variants`, {
      sku: 'CROSS-3M',
      attributes: { Size: 'M' },
      pricing: { basePrice: money('11') },
    });
    assert.equal(added.statusCode, 201);
    const v2 = await read('v2', made.id);
    assert.deepEqual(
      v2.variants.map((v: Json) => v.sku),
      ['CROSS-3', 'CROSS-3M'],
    );
    assert.ok(v2.modifiedOn > legacy.modifiedOn);
    const gtin = await call('POST', `/v2/commerce/products/${made.id}/variants/${added.json().id}`, {
      gtin: '12345670',
    });
    assert.equal(gtin.statusCode, 200);
    assert.equal((await read('1.1', made.id)).modifiedOn, (await read('v2', made.id)).modifiedOn);
  });

  test('the lists of 1.1 and v2 give the same PHYSICAL products in the same order', async () => {
    const other = await ctx.site();
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await createV2(
            {
              type: 'PHYSICAL',
              name: `P${i}`,
              variants: [{ sku: `ORDER-${i}`, pricing: { basePrice: money('1') } }],
            },
            other,
          )
        ).id,
      );
    await call('POST', `/1.1/commerce/products/${ids[0]}`, { name: 'moved last' }, other);
    for (const url of ['/1.1/commerce/products', '/v2/commerce/products']) {
      const listed = (await call('GET', url, undefined, other)).json().products.map((p: Json) => p.id);
      assert.deepEqual(listed, [ids[1], ids[2], ids[0]], url);
    }
  });
});

describe('SERVICE and GIFT_CARD products do not exist in 1.1 and 1.0', () => {
  test('left out of the lists, and a 404 by id that names the version to use', async () => {
    const other = await ctx.site();
    const shown = await createProduct(other, physical(other));
    const hidden = [await createV2(service(), other), await createV2(giftCard(), other)];
    for (const version of ['1.1', '1.0']) {
      const listed = (await call('GET', `/${version}/commerce/products`, undefined, other)).json().products;
      assert.deepEqual(
        listed.map((p: Json) => p.id),
        [shown.id],
        version,
      );
      for (const product of hidden) {
        const res = await call(
          'GET',
          `/${version}/commerce/products/${shown.id},${product.id}`,
          undefined,
          other,
        );
        assertError(
          res,
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
          new RegExp(
            `^product ${product.id} is a ${product.type} product, which API version 1.1 does not serve; use /v2/commerce/products$`,
          ),
        );
      }
    }
    const window = '?modifiedAfter=2000-01-01T00:00:00Z&modifiedBefore=2999-01-01T00:00:00Z';
    const windowed = (await call('GET', `/1.1/commerce/products${window}`, undefined, other)).json().products;
    assert.deepEqual(
      windowed.map((p: Json) => p.id),
      [shown.id],
    );
    assertError(
      await call('GET', '/1.1/commerce/products?type=SERVICE', undefined, other),
      400,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      /use PHYSICAL, DIGITAL$/,
    );
  });

  test('every 1.x write to one is a 405 that changes nothing', async () => {
    const product = await createV2(service());
    const base = `/1.1/commerce/products/${product.id}`;
    const variantId = product.variants[0].id;
    const png = multipartFile('file', 'a.png', Buffer.from('not read'));
    const writes = [
      await call('POST', base, { name: 'No' }),
      await call('DELETE', base),
      await call('POST', `${base}/variants`, { sku: 'NO-1', pricing: { basePrice: money('1') } }),
      await call('POST', `${base}/variants/${variantId}`, { sku: 'NO-2' }),
      await call('DELETE', `${base}/variants/${variantId}`),
      await call('POST', `${base}/variants/${variantId}/image`, { imageId: null }),
      await site.call({ method: 'POST', url: `${base}/images`, payload: png.payload, headers: png.headers }),
    ];
    for (const res of writes)
      assertError(
        res,
        405,
        'METHOD_NOT_ALLOWED',
        'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
        /use \/v2\/commerce\/products$/,
      );
    assert.deepEqual(await read('v2', product.id), product);
  });
});

describe('inventory and webhooks whichever version made the product', () => {
  test("inventory shows SERVICE variants' stock and no gift card's; a gift card cannot be adjusted", async () => {
    const other = await ctx.site({ scopes: ['website.products', 'website.inventory'] });
    const lesson = await createV2(service(), other);
    const card = await createV2(giftCard(), other);
    const listed = (await call('GET', '/1.0/commerce/inventory', undefined, other)).json().inventory;
    assert.deepEqual(listed, [
      {
        variantId: lesson.variants[0].id,
        sku: lesson.variants[0].sku,
        descriptor: lesson.name,
        isUnlimited: false,
        quantity: 4,
      },
    ]);
    const res = await other.call({
      method: 'POST',
      url: '/1.0/commerce/inventory/adjustments',
      headers: { ...other.headers, 'idempotency-key': 'gift-1' },
      payload: { setFiniteOperations: [{ variantId: card.variants[0].id, quantity: 3 }] },
    });
    assertError(res, 404, 'INVALID_REQUEST_ERROR', 'PRODUCT_VARIANT_NOT_FOUND');
    const decremented = await other.call({
      method: 'POST',
      url: '/1.0/commerce/inventory/adjustments',
      headers: { ...other.headers, 'idempotency-key': 'lesson-1' },
      payload: { decrementOperations: [{ variantId: lesson.variants[0].id, quantity: 1 }] },
    });
    assert.equal(decremented.statusCode, 204, decremented.body);
    const after = await read('v2', lesson.id, other);
    assert.deepEqual(after.variants[0].stock, { quantity: 3, unlimited: false });
    assert.ok(after.modifiedOn > lesson.modifiedOn);
  });
});
