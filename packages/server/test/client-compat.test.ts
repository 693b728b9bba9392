import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createProduct, money, multipartFile, physical, variant } from './helpers/factories.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/**
 * Bodies existing clients of the platform send as they are written: stock left partly or wholly
 * out, and the spec's change-wrapper `{ present, value }` wherever the specification shows it.
 */
let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
  site = await ctx.site();
});
after(() => ctx.close());

const PRODUCTS = '/1.1/commerce/products';
const wrap = (value: unknown) => ({ present: true, value });

async function uploadImage(productId: string): Promise<string> {
  const bytes = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#c84' } })
    .png()
    .toBuffer();
  const res = await site.call({
    method: 'POST',
    url: `${PRODUCTS}/${productId}/images`,
    ...multipartFile('file', 'a.png', bytes),
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().imageId;
}

describe('stock on variant creation', () => {
  test('{ unlimited: true } without quantity is unlimited; {} and a left-out stock are a finite 0', async () => {
    const product = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size'],
        variants: [
          variant('STOCK-U', { attributes: { Size: 'S' }, stock: { unlimited: true } }),
          variant('STOCK-E', { attributes: { Size: 'M' }, stock: {} }),
          variant('STOCK-N', { attributes: { Size: 'L' } }),
          variant('STOCK-Q', { attributes: { Size: 'XL' }, stock: { quantity: 7 } }),
        ],
      }),
    );
    assert.deepEqual(
      product.variants.map((v: { sku: string; stock: unknown }) => [v.sku, v.stock]),
      [
        ['STOCK-U', { quantity: 0, unlimited: true }],
        ['STOCK-E', { quantity: 0, unlimited: false }],
        ['STOCK-N', { quantity: 0, unlimited: false }],
        ['STOCK-Q', { quantity: 7, unlimited: false }],
      ],
    );
    const added = await site.call({
      method: 'POST',
      url: `${PRODUCTS}/${product.id}/variants`,
      payload: variant('STOCK-V', { attributes: { Size: 'XS' }, stock: { unlimited: true } }),
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.deepEqual(added.json().stock, { quantity: 0, unlimited: true });
  });
});

describe('change-wrappers', () => {
  test('image order: afterImageId plain or wrapped; { present: false } is a missing field', async () => {
    const product = await createProduct(site, physical(site));
    const [first, second] = [await uploadImage(product.id), await uploadImage(product.id)];
    const move = (imageId: string, body: object) =>
      site.call({ method: 'POST', url: `${PRODUCTS}/${product.id}/images/${imageId}/order`, payload: body });
    assert.equal((await move(second, { afterImageId: wrap(null) })).statusCode, 204);
    assert.equal((await move(second, { afterImageId: wrap(first) })).statusCode, 204);
    assert.equal((await move(first, { afterImageId: wrap(second) })).statusCode, 204);
    const images = (await site.call({ method: 'GET', url: `${PRODUCTS}/${product.id}` })).json().products[0]
      .images;
    assert.deepEqual(
      images.map((i: { id: string }) => i.id),
      [second, first],
    );
    assertError(
      await move(first, { afterImageId: { present: false } }),
      400,
      'INVALID_REQUEST_ERROR',
      'MISSING_ARGUMENT',
      /^afterImageId: is required$/,
    );
  });

  test('variant image: imageId plain or wrapped, a wrapped null clears it', async () => {
    const product = await createProduct(site, physical(site));
    const imageId = await uploadImage(product.id);
    const variantId = product.variants[0].id;
    const assign = (body: object) =>
      site.call({
        method: 'POST',
        url: `${PRODUCTS}/${product.id}/variants/${variantId}/image`,
        payload: body,
      });
    const shown = async () =>
      (await site.call({ method: 'GET', url: `${PRODUCTS}/${product.id}` })).json().products[0].variants[0]
        .image?.id ?? null;
    assert.equal((await assign({ imageId: wrap(imageId) })).statusCode, 204);
    assert.equal(await shown(), imageId);
    assert.equal((await assign({ imageId: wrap(null) })).statusCode, 204);
    assert.equal(await shown(), null);
  });

  test('the fields inside pricing and measurements may be wrapped too, on variant and product updates', async () => {
    const product = await createProduct(site, physical(site));
    const variantId = product.variants[0].id;
    const res = await site.call({
      method: 'POST',
      url: `${PRODUCTS}/${product.id}/variants/${variantId}`,
      payload: {
        pricing: wrap({
          basePrice: wrap(money('20.00')),
          salePrice: wrap(money('15.00')),
          onSale: wrap(true),
        }),
        shippingMeasurements: wrap({
          weight: wrap({ unit: 'POUND', value: 2 }),
          dimensions: { present: false },
        }),
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().pricing, {
      basePrice: money('20.00'),
      salePrice: money('15.00'),
      onSale: true,
    });
    assert.deepEqual(res.json().shippingMeasurements.weight, { unit: 'POUND', value: 2 });
    const renamed = await site.call({
      method: 'POST',
      url: `${PRODUCTS}/${product.id}`,
      payload: {
        name: wrap('Wrapped'),
        seoOptions: wrap({ title: wrap('T'), description: { present: false } }),
      },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().name, 'Wrapped');
    assert.deepEqual(renamed.json().seoOptions, { title: 'T', description: null });
  });

  test('webhook subscription update: endpointUrl and topics plain or wrapped', async () => {
    const shop = await connectApp(ctx);
    const created = await shop.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: 'https://hooks.example.com/a',
      topics: ['order.create'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const updated = await shop.call('POST', `/1.0/webhook_subscriptions/${created.json().id}`, {
      endpointUrl: wrap('https://hooks.example.com/b'),
      topics: wrap(['order.update', 'extension.uninstall']),
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal(updated.json().endpointUrl, 'https://hooks.example.com/b');
    assert.deepEqual(updated.json().topics.sort(), ['extension.uninstall', 'order.update']);
  });

  test('a wrapper without a value, { present: true }, is refused as the field it stands for', async () => {
    const product = await createProduct(site, physical(site));
    const res = await site.call({
      method: 'POST',
      url: `${PRODUCTS}/${product.id}`,
      payload: { name: { present: true } },
    });
    assertError(res, 400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /^name: must be a string$/);
  });
});

describe('Products v2 as a client generated from the platform document sends it', () => {
  test('update bodies wrapped at every level, seoData, productAttributeNames, gtin; repeated type filters', async () => {
    const V2 = '/v2/commerce/products';
    const made = await site.call({
      method: 'POST',
      url: V2,
      payload: {
        type: 'SERVICE',
        storePageId: site.storePageId,
        name: 'Repair',
        variants: [{ sku: 'REPAIR-1', pricing: { basePrice: money('15.00') } }],
      },
    });
    assert.equal(made.statusCode, 201, made.body);
    const id = made.json().id;
    const updated = await site.call({
      method: 'POST',
      url: `${V2}/${id}`,
      payload: {
        name: wrap('Repairs'),
        seoData: wrap({ description: wrap('Same day') }),
        productAttributeNames: wrap(['Item']),
        tags: { present: false },
      },
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(
      [updated.json().name, updated.json().seoOptions, updated.json().variantAttributes],
      ['Repairs', { title: null, description: 'Same day' }, ['Item']],
    );
    const variantId = made.json().variants[0].id;
    const priced = await site.call({
      method: 'POST',
      url: `${V2}/${id}/variants/${variantId}`,
      payload: { pricing: wrap({ basePrice: wrap(money('18.00')), onSale: { present: false } }) },
    });
    assert.equal(priced.statusCode, 200, priced.body);
    assert.deepEqual(priced.json().pricing.basePrice, money('18.00'));
    const listed = await site.call({ method: 'GET', url: `${V2}?type=SERVICE&type=GIFT_CARD` });
    assert.ok(listed.json().products.some((p: { id: string }) => p.id === id));
  });
});
