import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProductVariant } from '../src/catalog/products.schemas.ts';
import { MAX_VARIANTS } from '../src/catalog/variants.service.ts';
import { createProduct, digital, money, physical, variant } from './helpers/factories.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const PRODUCTS = '/1.1/commerce/products';
const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
let skus = 0;
const sku = () => `VAR-${++skus}-${Math.random().toString(36).slice(2, 6)}`;

/** A PHYSICAL product with attributes Size and Color and one variant (S, Red). */
const sized = (s: Site = site) =>
  createProduct(
    s,
    physical(s, {
      variantAttributes: ['Size', 'Color'],
      variants: [variant(sku(), { attributes: { Size: 'S', Color: 'Red' } })],
    }),
  );
const addVariant = (productId: string, body: unknown, s: Site = site, prefix = PRODUCTS) =>
  s.call({ method: 'POST', url: `${prefix}/${productId}/variants`, payload: body as object });
const editVariant = (productId: string, variantId: string, body: unknown, s: Site = site) =>
  s.call({ method: 'POST', url: `${PRODUCTS}/${productId}/variants/${variantId}`, payload: body as object });
const removeVariant = (productId: string, variantId: string, s: Site = site) =>
  s.call({ method: 'DELETE', url: `${PRODUCTS}/${productId}/variants/${variantId}` });
const product = async (id: string, s: Site = site) => {
  const res = await s.call({ method: 'GET', url: `${PRODUCTS}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0];
};
const invalid = (
  res: Awaited<ReturnType<typeof addVariant>>,
  message: RegExp,
  subtype = 'INVALID_ARGUMENT',
) => assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

describe('create a variant', () => {
  test('201 with the documented shape; the product lists it last and its modifiedOn moves', async () => {
    const p = await sized();
    const res = await addVariant(p.id, {
      sku: `  ${sku()}  `,
      attributes: { Size: 'M', Color: 'Red' },
      pricing: { basePrice: money('12.50'), salePrice: money('9.99'), onSale: true },
      stock: { quantity: 7, unlimited: false },
      shippingMeasurements: { weight: { unit: 'POUND', value: 1.5 } },
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    assertShape(ProductVariant, created);
    assert.equal(created.sku, created.sku.trim());
    assert.deepEqual(created.pricing.salePrice, money('9.99'));
    assert.deepEqual(created.stock, { quantity: 7, unlimited: false });
    assert.deepEqual(created.measurements.weight, { unit: 'POUND', value: 1.5 });
    assert.deepEqual(created.measurements, created.shippingMeasurements);
    assert.equal(created.image, null);
    const after = await product(p.id);
    assert.deepEqual(
      after.variants.map((v: { id: string }) => v.id),
      [p.variants[0].id, created.id],
    );
    assert.ok(Date.parse(after.modifiedOn) > Date.parse(p.modifiedOn));
  });

  test('works under /1.0 as well', async () => {
    const p = await sized();
    const res = await addVariant(
      p.id,
      variant(sku(), { attributes: { Size: 'L', Color: 'Red' } }),
      site,
      '/1.0/commerce/products',
    );
    assert.equal(res.statusCode, 201, res.body);
  });

  test('the new SKU is searchable at once', async () => {
    const p = await sized();
    const code = `FINDME${Date.now()}`;
    assert.equal(
      (await addVariant(p.id, variant(code, { attributes: { Size: 'M', Color: 'Blue' } }))).statusCode,
      201,
    );
    const res = await site.call({ method: 'GET', url: `${PRODUCTS}?query=${code.toLowerCase()}` });
    assert.deepEqual(
      res.json().products.map((x: { id: string }) => x.id),
      [p.id],
    );
  });

  test('a product without variant attributes cannot take a second variant: 400', async () => {
    const p = await createProduct(site, physical(site));
    invalid(await addVariant(p.id, variant(sku())), /variantAttributes/);
  });

  test('attributes must be exactly the product variantAttributes, and not repeat another variant', async () => {
    const p = await sized();
    invalid(
      await addVariant(p.id, variant(sku(), { attributes: { Size: 'M' } })),
      /Color/,
      'MISSING_ARGUMENT',
    );
    invalid(
      await addVariant(p.id, variant(sku(), { attributes: { Size: 'M', Color: 'Red', Fit: 'Slim' } })),
      /Fit/,
    );
    invalid(
      await addVariant(p.id, variant(sku(), { attributes: { Size: 'S', Color: 'Red' } })),
      /same values/,
    );
    invalid(
      await addVariant(p.id, variant(sku(), { attributes: { Size: 'x'.repeat(101), Color: 'Red' } })),
      /attributes/,
    );
    assert.equal((await product(p.id)).variants.length, 1, 'nothing was written');
  });

  test('SKU: required, 1 to 60 characters after trimming, unique within the website (409 SKU_UNAVAILABLE)', async () => {
    const p = await sized();
    invalid(
      await addVariant(p.id, {
        pricing: { basePrice: money('1.00') },
        attributes: { Size: 'M', Color: 'Red' },
      }),
      /sku/,
      'MISSING_ARGUMENT',
    );
    invalid(
      await addVariant(p.id, variant('   ', { attributes: { Size: 'M', Color: 'Red' } })),
      /sku/,
      'MISSING_ARGUMENT',
    );
    invalid(
      await addVariant(p.id, variant('x'.repeat(61), { attributes: { Size: 'M', Color: 'Red' } })),
      /60/,
    );
    const taken = p.variants[0].sku;
    assertError(
      await addVariant(p.id, variant(` ${taken} `, { attributes: { Size: 'M', Color: 'Red' } })),
      409,
      'CONFLICT',
      'SKU_UNAVAILABLE',
    );
  });

  test('the same SKU on another website is fine', async () => {
    const other = await ctx.site();
    const p = await sized();
    const mine = await sized(other);
    const res = await addVariant(
      mine.id,
      variant(p.variants[0].sku, { attributes: { Size: 'M', Color: 'Red' } }),
      other,
    );
    assert.equal(res.statusCode, 201, res.body);
  });

  test('money and units follow the website: CURRENCY_MISMATCH, MEASUREMENT_STANDARD_MISMATCH', async () => {
    const p = await sized();
    invalid(
      await addVariant(p.id, {
        sku: sku(),
        attributes: { Size: 'M', Color: 'Red' },
        pricing: { basePrice: money('1.00', 'EUR') },
      }),
      /currency/i,
      'CURRENCY_MISMATCH',
    );
    invalid(
      await addVariant(
        p.id,
        variant(sku(), {
          attributes: { Size: 'M', Color: 'Red' },
          measurements: { weight: { unit: 'KILOGRAM', value: 1 } },
        }),
      ),
      /KILOGRAM/,
      'MEASUREMENT_STANDARD_MISMATCH',
    );
  });

  test(`at most ${MAX_VARIANTS} variants a product, even when created concurrently: 409 ENTITY_LIMIT_REACHED`, async () => {
    const variants = Array.from({ length: 100 }, (_, i) => variant(sku(), { attributes: { N: String(i) } }));
    const p = await createProduct(site, physical(site, { variantAttributes: ['N'], variants }));
    for (let i = 100; i < MAX_VARIANTS - 10; i++) {
      assert.equal(
        (await addVariant(p.id, variant(sku(), { attributes: { N: String(i) } }))).statusCode,
        201,
      );
    }
    const racing = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        addVariant(p.id, variant(sku(), { attributes: { N: `race-${i}` } })),
      ),
    );
    assert.equal(racing.filter((r) => r.statusCode === 201).length, 10);
    for (const r of racing.filter((r) => r.statusCode !== 201))
      assertError(r, 409, 'CONFLICT', 'ENTITY_LIMIT_REACHED');
    assert.equal((await product(p.id)).variants.length, MAX_VARIANTS);
  });

  test('a DIGITAL product answers 405 OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE on every variant route', async () => {
    const d = await createProduct(site, digital(site));
    const check = (res: Awaited<ReturnType<typeof addVariant>>) =>
      assertError(res, 405, 'METHOD_NOT_ALLOWED', 'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE', /DIGITAL/);
    check(await addVariant(d.id, variant(sku())));
    check(await editVariant(d.id, MISSING_UUID, { sku: sku() }));
    check(await removeVariant(d.id, MISSING_UUID));
    check(
      await site.call({
        method: 'POST',
        url: `${PRODUCTS}/${d.id}/variants/${MISSING_UUID}/image`,
        payload: { imageId: null },
      }),
    );
  });
});

describe('update a variant', () => {
  test('changes only the fields sent, plain or wrapped; stock is left alone; modifiedOn moves', async () => {
    const p = await sized();
    const v = p.variants[0];
    const res = await editVariant(p.id, v.id, {
      sku: { present: true, value: 'RENAMED-' + sku() },
      pricing: { basePrice: money('20.00') },
      attributes: { present: false },
      stock: { quantity: 999 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const updated = res.json();
    assertShape(ProductVariant, updated);
    assert.match(updated.sku, /^RENAMED-/);
    assert.deepEqual(updated.pricing.basePrice, money('20.00'));
    assert.deepEqual(updated.attributes, v.attributes);
    assert.deepEqual(updated.stock, v.stock, 'stock changes only through inventory');
    const after = await product(p.id);
    assert.deepEqual(after.variants[0], updated);
    assert.ok(Date.parse(after.modifiedOn) > Date.parse(p.modifiedOn));
  });

  test('measurements replace the old ones; both keys must agree', async () => {
    const p = await sized();
    const v = p.variants[0];
    const weight = { weight: { unit: 'POUND', value: 3 } };
    const res = await editVariant(p.id, v.id, { measurements: weight });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().shippingMeasurements.weight, weight.weight);
    invalid(
      await editVariant(p.id, v.id, {
        measurements: weight,
        shippingMeasurements: { weight: { unit: 'POUND', value: 4 } },
      }),
      /shippingMeasurements/,
    );
  });

  test('attributes: must fit the product and not repeat another variant', async () => {
    const p = await sized();
    const second = (
      await addVariant(p.id, variant(sku(), { attributes: { Size: 'M', Color: 'Red' } }))
    ).json();
    invalid(await editVariant(p.id, second.id, { attributes: { Size: 'S', Color: 'Red' } }), /same values/);
    invalid(await editVariant(p.id, second.id, { attributes: { Size: 'S' } }), /Color/, 'MISSING_ARGUMENT');
    const ok = await editVariant(p.id, second.id, { attributes: { Size: 'M', Color: 'Blue' } });
    assert.equal(ok.statusCode, 200, ok.body);
  });

  test('a SKU used by another variant: 409 SKU_UNAVAILABLE; keeping its own SKU is fine', async () => {
    const p = await sized();
    const q = await sized();
    assertError(
      await editVariant(p.id, p.variants[0].id, { sku: q.variants[0].sku }),
      409,
      'CONFLICT',
      'SKU_UNAVAILABLE',
    );
    assert.equal((await editVariant(p.id, p.variants[0].id, { sku: p.variants[0].sku })).statusCode, 200);
  });

  test('an unknown variant, or one of another product: 404', async () => {
    const p = await sized();
    const q = await sized();
    assertError(
      await editVariant(p.id, MISSING_UUID, { sku: sku() }),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      /variant not found/,
    );
    assertError(
      await editVariant(p.id, 'not-a-uuid', { sku: sku() }),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    assertError(
      await editVariant(p.id, q.variants[0].id, { sku: sku() }),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
  });
});

describe('delete a variant', () => {
  test('204, gone from the product; the last one cannot go: 409 INSUFFICIENT_PRODUCT_VARIANTS', async () => {
    const p = await sized();
    const second = (
      await addVariant(p.id, variant(sku(), { attributes: { Size: 'M', Color: 'Red' } }))
    ).json();
    assert.equal((await removeVariant(p.id, p.variants[0].id)).statusCode, 204);
    assert.deepEqual(
      (await product(p.id)).variants.map((v: { id: string }) => v.id),
      [second.id],
    );
    assertError(await removeVariant(p.id, second.id), 409, 'CONFLICT', 'INSUFFICIENT_PRODUCT_VARIANTS');
    assertError(
      await removeVariant(p.id, p.variants[0].id),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
  });
});

describe('variants across websites and scopes', () => {
  test('another website cannot reach a product variants: 404, nothing changed', async () => {
    const p = await sized();
    const other = await ctx.site();
    const v = p.variants[0];
    assertError(
      await addVariant(p.id, variant(sku(), { attributes: { Size: 'M', Color: 'Red' } }), other),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    assertError(
      await editVariant(p.id, v.id, { sku: sku() }, other),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    assertError(await removeVariant(p.id, v.id, other), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
    assert.deepEqual((await product(p.id)).variants, p.variants);
  });

  test('a read-only key cannot write variants: 403 MISSING_SCOPE', async () => {
    const p = await sized();
    const reader = await ctx.site({ scopes: ['website.products.read'] });
    assertError(await addVariant(p.id, variant(sku()), reader), 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE');
  });
});
