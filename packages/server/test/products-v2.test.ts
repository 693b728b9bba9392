import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductV2, ProductV2List, ProductVariantV2 } from '../src/catalog/products-v2.schemas.ts';
import sharp from 'sharp';
import { createProduct, digital, money, multipartFile, physical } from './helpers/factories.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** Products v2 (platform-surface 2.5): every operation for each type, and the limits. */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
  site = await ctx.site();
});
after(() => ctx.close());

const V2 = '/v2/commerce/products';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  site.call({ method, url, ...(payload !== undefined && { payload: payload as object }) });
const invalid = (res: Awaited<ReturnType<typeof call>>, message: RegExp, subtype = 'INVALID_ARGUMENT') =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

let skus = 0;
const sku = (prefix: string) => `${prefix}-${++skus}`;

/** Bodies of v2 creation, one per creatable type, as 2.5.4 lists their fields. */
const bodies = {
  PHYSICAL: (overrides: Json = {}) => ({
    type: 'PHYSICAL',
    storePageId: site.storePageId,
    name: 'Linen Shirt',
    variantAttributes: ['Size'],
    variants: [
      {
        sku: sku('SHIRT'),
        pricing: { basePrice: money('40.00'), salePrice: money('30.00'), onSale: true },
        stock: { quantity: 3, unlimited: false },
        attributes: { Size: 'S' },
        shippingMeasurements: { weight: { unit: 'POUND', value: 1.5 } },
        gtin: '0123-4567-8901-28',
        mpn: 'MPN-1234',
      },
    ],
    ...overrides,
  }),
  SERVICE: (overrides: Json = {}) => ({
    type: 'SERVICE',
    storePageId: site.storePageId,
    name: 'Tailoring',
    variantAttributes: ['Length'],
    variants: [
      { sku: sku('TAILOR'), pricing: { basePrice: money('25.00') }, attributes: { Length: '30 min' } },
      {
        sku: sku('TAILOR'),
        pricing: { basePrice: money('45.00') },
        stock: { unlimited: true },
        attributes: { Length: '60 min' },
      },
    ],
    ...overrides,
  }),
  GIFT_CARD: (overrides: Json = {}) => ({
    type: 'GIFT_CARD',
    storePageId: site.storePageId,
    name: 'Gift Card',
    variants: [
      { sku: sku('GIFT'), pricing: { basePrice: money('25.00') } },
      { sku: sku('GIFT'), pricing: { basePrice: money('50.00') } },
    ],
    ...overrides,
  }),
};

async function created(body: Json): Promise<Json> {
  const res = await call('POST', V2, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

const get = async (id: string, version = 'v2') => {
  const res = await call('GET', `/${version}/commerce/products/${id}`);
  return res.statusCode === 200 ? (res.json().products[0] as Json) : undefined;
};

const COMMON = ['id', 'type', 'storePageId', 'name', 'description', 'url', 'urlSlug', 'tags', 'isVisible'];
const DATES = ['seoOptions', 'createdOn', 'modifiedOn'];
/** The fields of each type, in the order they are sent (2.5.1; open question 8). */
const PRODUCT_KEYS = {
  PHYSICAL: [...COMMON, 'variantAttributes', 'variants', 'images', ...DATES],
  SERVICE: [...COMMON, 'variantAttributes', 'variants', 'images', ...DATES],
  GIFT_CARD: [...COMMON, 'variants', 'images', ...DATES],
  DIGITAL: [...COMMON, 'images', 'pricing', 'digitalGood', ...DATES],
};
const VARIANT_KEYS = {
  PHYSICAL: ['id', 'sku', 'pricing', 'stock', 'attributes', 'shippingMeasurements', 'image', 'gtin', 'mpn'],
  SERVICE: ['id', 'sku', 'pricing', 'stock', 'attributes', 'image'],
  GIFT_CARD: ['id', 'sku', 'pricing', 'image'],
};

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
