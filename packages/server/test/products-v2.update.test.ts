import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductVariantV2 } from '../src/catalog/v2/products-v2.schemas.ts';
import sharp from 'sharp';
import { createProduct, digital, money, multipartFile } from './helpers/factories.ts';
import { PRODUCT_KEYS, productsV2Calls, sku, V2, VARIANT_KEYS, type Json } from './helpers/products-v2.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Products v2 (platform-surface 2.5): updating and deleting a product of each type, its variants
 * and its images, and the limits. Shapes, creation, list and get are in products-v2.create-read.test.ts.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
  site = await ctx.site();
});
after(() => ctx.close());

const { call, invalid, bodies, created, get } = productsV2Calls(() => site);

describe('update and delete', () => {
  test('seoData and productAttributeNames are taken for seoOptions and variantAttributes, plain or wrapped', async () => {
    const product = await created(bodies.SERVICE());
    const res = await call('POST', `${V2}/${product.id}`, {
      name: { present: true, value: 'Alterations' },
      seoData: { title: 'Alterations', description: 'While you wait' },
      productAttributeNames: { present: true, value: ['Length', 'Tailor'] },
    });
    assert.equal(res.statusCode, 200, res.body);
    const updated = res.json();
    assert.deepEqual(Object.keys(updated), PRODUCT_KEYS.SERVICE);
    assert.equal(updated.name, 'Alterations');
    assert.deepEqual(updated.seoOptions, { title: 'Alterations', description: 'While you wait' });
    assert.deepEqual(updated.variantAttributes, ['Length', 'Tailor']);
    assert.deepEqual(updated.variants[0].attributes, { Length: '30 min', Tailor: '' });
    assert.ok(updated.modifiedOn > product.modifiedOn);
    const cleared = await call('POST', `${V2}/${product.id}`, { seoOptions: null });
    assert.equal(cleared.json().seoOptions, null);
    invalid(
      await call('POST', `${V2}/${product.id}`, { seoData: { title: 'A' }, seoOptions: { title: 'B' } }),
      /^seoData: differs from seoOptions; send one of them$/,
    );
  });

  test("another type's field in an update is a 400 naming it, and changes nothing", async () => {
    const gift = await created(bodies.GIFT_CARD());
    invalid(
      await call('POST', `${V2}/${gift.id}`, { name: 'X', productAttributeNames: ['Amount'] }),
      /^productAttributeNames: a GIFT_CARD product has no productAttributeNames$/,
    );
    invalid(
      await call('POST', `${V2}/${gift.id}`, { pricing: { basePrice: money('5') } }),
      /^pricing: a GIFT_CARD product has no product-level pricing/,
    );
    assert.deepEqual(await get(gift.id), gift);
  });

  test('a DIGITAL product is updated through v2, its pricing too, but not deleted there (405)', async () => {
    const made = await createProduct(site, digital(site));
    const res = await call('POST', `${V2}/${made.id}`, {
      pricing: { basePrice: money('7.50') },
      isVisible: true,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().pricing.basePrice, money('7.50'));
    assertError(
      await call('DELETE', `${V2}/${made.id}`),
      405,
      'METHOD_NOT_ALLOWED',
      'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );
    assert.ok(await get(made.id));
  });

  test('delete answers 204 for each creatable type; then 404', async () => {
    for (const type of ['PHYSICAL', 'SERVICE', 'GIFT_CARD'] as const) {
      const product = await created(bodies[type]());
      const res = await call('DELETE', `${V2}/${product.id}`);
      assert.equal(res.statusCode, 204, type);
      assert.equal(await get(product.id), undefined);
      assertError(
        await call('DELETE', `${V2}/${product.id}`),
        404,
        'INVALID_REQUEST_ERROR',
        'INVALID_ARGUMENT',
      );
    }
  });
});

describe('variants of each type', () => {
  test('PHYSICAL: create with gtin and mpn, update them (null clears), delete; the only variant stays (409)', async () => {
    const product = await created(bodies.PHYSICAL());
    const path = `${V2}/${product.id}/variants`;
    const res = await call('POST', path, {
      sku: sku('SHIRT'),
      pricing: { basePrice: money('42.00') },
      attributes: { Size: 'M' },
      gtin: '4006381333931',
    });
    assert.equal(res.statusCode, 201, res.body);
    assertShape(ProductVariantV2, res.json());
    assert.deepEqual(Object.keys(res.json()), VARIANT_KEYS.PHYSICAL);
    assert.equal(res.json().gtin, '4006381333931');
    assert.equal(res.json().mpn, null);
    const id = res.json().id;
    const updated = await call('POST', `${path}/${id}`, {
      gtin: null,
      mpn: { present: true, value: 'XY-9' },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual([updated.json().gtin, updated.json().mpn], [null, 'XY-9']);
    invalid(await call('POST', `${path}/${id}`, { gtin: '123' }), /^gtin: a GTIN has/);
    assert.equal((await call('DELETE', `${path}/${id}`)).statusCode, 204);
    const last = await call('DELETE', `${path}/${product.variants[0].id}`);
    assertError(
      last,
      409,
      'CONFLICT',
      'INSUFFICIENT_PRODUCT_VARIANTS',
      /^variants: the only variant of a product cannot be deleted/,
    );
  });

  test('SERVICE: attributes required, no gtin; variants created and updated in the SERVICE shape', async () => {
    const product = await created(bodies.SERVICE());
    const path = `${V2}/${product.id}/variants`;
    const res = await call('POST', path, {
      sku: sku('T'),
      pricing: { basePrice: money('90') },
      attributes: { Length: '2 h' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(Object.keys(res.json()), VARIANT_KEYS.SERVICE);
    invalid(
      await call('POST', path, {
        sku: sku('T'),
        pricing: { basePrice: money('1') },
        attributes: { Length: '3 h' },
        mpn: 'A1',
      }),
      /^mpn: a SERVICE product's variants have no mpn$/,
    );
    invalid(
      await call('POST', `${path}/${res.json().id}`, { gtin: '12345670' }),
      /^gtin: a SERVICE product's variants have no gtin$/,
    );
    const updated = await call('POST', `${path}/${res.json().id}`, { pricing: { basePrice: money('95') } });
    assert.deepEqual(Object.keys(updated.json()), VARIANT_KEYS.SERVICE);
  });

  test('GIFT_CARD: a denomination needs no attributes; sku and basePrice only', async () => {
    const product = await created(bodies.GIFT_CARD());
    const path = `${V2}/${product.id}/variants`;
    const res = await call('POST', path, { sku: sku('GIFT'), pricing: { basePrice: money('100') } });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json(), {
      id: res.json().id,
      sku: res.json().sku,
      pricing: { basePrice: money('100.00') },
      image: null,
    });
    invalid(
      await call('POST', `${path}/${res.json().id}`, { pricing: { basePrice: money('1'), onSale: true } }),
      /^pricing\.onSale: a GIFT_CARD product's variants have a basePrice only$/,
    );
    invalid(
      await call('POST', path, { sku: sku('G'), pricing: { basePrice: money('5') }, attributes: { A: 'b' } }),
      /^attributes: a GIFT_CARD/,
    );
    assert.equal((await call('DELETE', `${path}/${res.json().id}`)).statusCode, 204);
  });

  test('DIGITAL: every variant endpoint is a 405', async () => {
    const made = await createProduct(site, digital(site));
    const path = `${V2}/${made.id}/variants`;
    const refused = [
      await call('POST', path, { sku: sku('D'), pricing: { basePrice: money('1') } }),
      await call('POST', `${path}/00000000-0000-4000-8000-000000000000`, { sku: 'X' }),
      await call('DELETE', `${path}/00000000-0000-4000-8000-000000000000`),
      await call('POST', `${path}/00000000-0000-4000-8000-000000000000/image`, { imageId: null }),
    ];
    for (const res of refused)
      assertError(
        res,
        405,
        'METHOD_NOT_ALLOWED',
        'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
        /does not support variants/,
      );
  });

  test('a product has at most 250 variants: the 251st is a 409, and not stored', async () => {
    const product = await created(
      bodies.GIFT_CARD({ variants: [{ sku: sku('MANY'), pricing: { basePrice: money('1') } }] }),
    );
    const template = await ctx.db
      .selectFrom('variants')
      .selectAll()
      .where('product_id', '=', product.id)
      .executeTakeFirstOrThrow();
    await ctx.db
      .insertInto('variants')
      .values(
        Array.from({ length: 249 }, (_, i) => ({
          ...template,
          id: ctx.ids.uuid(),
          sku: sku('MANY'),
          position: i + 1,
        })),
      )
      .execute();
    const res = await call('POST', `${V2}/${product.id}/variants`, {
      sku: sku('MANY'),
      pricing: { basePrice: money('1') },
    });
    assertError(res, 409, 'CONFLICT', 'ENTITY_LIMIT_REACHED', /at most 250 variants/);
    const stored = await ctx.db
      .selectFrom('variants')
      .select('id')
      .where('product_id', '=', product.id)
      .execute();
    assert.equal(stored.length, 250);
  });
});

describe('images of any type', () => {
  const png = () =>
    sharp({ create: { width: 40, height: 30, channels: 3, background: '#c84' } })
      .png()
      .toBuffer();
  const upload = async (productId: string, name: string) => {
    const { payload, headers } = multipartFile('file', name, await png());
    return site.call({ method: 'POST', url: `${V2}/${productId}/images`, payload, headers });
  };

  test('upload (202), status, alt text, order, a variant shows one, delete: on a GIFT_CARD product', async () => {
    const product = await created(bodies.GIFT_CARD());
    const base = `${V2}/${product.id}/images`;
    const first = await upload(product.id, 'front.png');
    assert.equal(first.statusCode, 202, first.body);
    const { imageId } = first.json();
    const processed = ctx.imageProcessed(imageId);
    const status = await call('GET', `${base}/${imageId}/status`);
    assert.deepEqual(Object.keys(status.json()), ['id', 'status']);
    assert.match(status.json().status, /^(QUEUED|PROCESSING|READY)$/);
    await processed;
    assert.deepEqual((await call('GET', `${base}/${imageId}/status`)).json(), {
      id: imageId,
      status: 'READY',
    });
    const second = (await upload(product.id, 'back.png')).json().imageId;

    const alt = await call('POST', `${base}/${second}`, { altText: 'The back' });
    assert.equal(alt.statusCode, 200, alt.body);
    assert.deepEqual([alt.json().id, alt.json().altText, alt.json().orderIndex], [second, 'The back', 1]);
    assert.equal((await call('POST', `${base}/${second}/order`, { afterImageId: null })).statusCode, 204);
    const variantId = product.variants[0].id;
    const shown = await call('POST', `${V2}/${product.id}/variants/${variantId}/image`, { imageId: second });
    assert.equal(shown.statusCode, 204, shown.body);
    const read = (await get(product.id))!;
    assert.deepEqual(
      read.images.map((i: Json) => i.id),
      [second, imageId],
    );
    assert.equal(read.variants[0].image.id, second);
    assert.deepEqual(Object.keys(read.variants[0]), VARIANT_KEYS.GIFT_CARD);

    assert.equal((await call('DELETE', `${base}/${second}`)).statusCode, 204);
    const after = (await get(product.id))!;
    assert.deepEqual(
      after.images.map((i: Json) => i.id),
      [imageId],
    );
    assert.equal(after.variants[0].image, null);
    assertError(
      await call('GET', `${base}/${second}/status`),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
  });

  test('a DIGITAL product takes images through v2; an image of another product is a 400 on a variant', async () => {
    const download = await createProduct(site, digital(site));
    assert.equal((await upload(download.id, 'cover.png')).statusCode, 202);
    const service = await created(bodies.SERVICE());
    const foreign = (await upload(download.id, 'other.png')).json().imageId;
    invalid(
      await call('POST', `${V2}/${service.id}/variants/${service.variants[0].id}/image`, {
        imageId: foreign,
      }),
      /^imageId: .* is not an image of this product$/,
    );
  });
});
