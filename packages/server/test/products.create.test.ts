import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Product } from '../src/catalog/products.schemas.ts';
import { createProduct, digital, money, physical, variant } from './helpers/factories.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp();
  site = await ctx.site();
});
after(() => ctx.close());

const create = (body: unknown) =>
  site.call({ method: 'POST', url: '/1.1/commerce/products', payload: body as object });
const invalid = (res: Awaited<ReturnType<typeof create>>, message: RegExp, subtype = 'INVALID_ARGUMENT') =>
  assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

describe('create a physical product', () => {
  test('answers 201 with the documented Product shape, hidden by default', async () => {
    const res = await create(
      physical(site, {
        name: 'Blue Mug',
        tags: ['kitchen', 'blue'],
        variants: [
          variant('MUG-1', {
            stock: { quantity: 5 },
            pricing: { basePrice: money('12.5'), salePrice: money('9.99'), onSale: true },
          }),
        ],
      }),
    );
    assert.equal(res.statusCode, 201);
    const product = res.json();
    assertShape(Product, product);
    assert.match(product.id, /^[0-9a-f]{24}$/);
    assert.equal(product.isVisible, false);
    assert.equal(product.urlSlug, 'blue-mug');
    assert.equal(product.url, `${BASE_URL}/s/${site.websiteId}/shop/p/blue-mug`);
    assert.equal(product.pricing, null);
    assert.equal(product.digitalGood, null);
    assert.deepEqual(product.images, []);
    assert.deepEqual(product.tags, ['kitchen', 'blue']);
    assert.equal(product.createdOn, product.modifiedOn);
    assert.match(product.createdOn, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const [v] = product.variants;
    assert.match(v.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(v.pricing, { basePrice: money('12.50'), salePrice: money('9.99'), onSale: true });
    assert.deepEqual(v.stock, { quantity: 5, unlimited: false });
    assert.deepEqual(v.attributes, {});
    assert.equal(v.image, null);
    assert.deepEqual(v.measurements, {
      weight: { unit: 'POUND', value: 0 },
      dimensions: { unit: 'INCH', length: 0, width: 0, height: 0 },
    });
    assert.deepEqual(v.shippingMeasurements, v.measurements);
  });

  test('is readable afterwards exactly as created', async () => {
    const created = await createProduct(site, physical(site, { name: 'Readback' }));
    const res = await site.call({ method: 'GET', url: `/1.1/commerce/products/${created.id}` });
    assert.deepEqual(res.json().products, [created]);
  });

  test('stores isVisible when given', async () => {
    assert.equal((await createProduct(site, physical(site, { isVisible: true }))).isVisible, true);
  });

  test('sanitizes the description HTML: no script, no event handlers, no javascript: URLs', async () => {
    const product = await createProduct(
      site,
      physical(site, {
        description:
          '<p onclick="steal()">Hi<script>alert(1)</script> <a href="javascript:alert(1)">x</a> <b>bold</b></p>',
      }),
    );
    assert.equal(product.description, '<p>Hi <a>x</a> <b>bold</b></p>');
  });

  test('gives a picture in the description without alt text an empty one; alt text given is kept', async () => {
    const product = await createProduct(
      site,
      physical(site, {
        description:
          '<p><img src="https://cdn.example.com/mug.png"> <img src="https://cdn.example.com/tote.png" alt="A tote"></p>',
      }),
    );
    assert.equal(
      product.description,
      '<p><img src="https://cdn.example.com/mug.png" alt="" /> <img src="https://cdn.example.com/tote.png" alt="A tote" /></p>',
    );
  });

  test('generates unique slugs from the name with -2, -3 suffixes', async () => {
    const a = await createProduct(site, physical(site, { name: 'Crème Brûlée Set!' }));
    const b = await createProduct(site, physical(site, { name: 'Crème Brûlée Set!' }));
    const c = await createProduct(site, physical(site, { name: 'creme brulee set' }));
    assert.deepEqual(
      [a.urlSlug, b.urlSlug, c.urlSlug],
      ['creme-brulee-set', 'creme-brulee-set-2', 'creme-brulee-set-3'],
    );
  });

  test('concurrent creates of one name all succeed, each with its own slug', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => create(physical(site, { name: 'Rush Hour' }))),
    );
    assert.deepEqual(
      results.map((r) => r.statusCode),
      Array(12).fill(201),
    );
    const slugs = results.map((r) => r.json().urlSlug).sort();
    assert.equal(new Set(slugs).size, 12);
    assert.ok(slugs.every((slug) => /^rush-hour(-\d+)?$/.test(slug)));
  });

  test('lower-cases a given urlSlug; a taken one is 409 URL_SLUG_UNAVAILABLE', async () => {
    const product = await createProduct(site, physical(site, { urlSlug: 'My-Special-Mug' }));
    assert.equal(product.urlSlug, 'my-special-mug');
    assertError(
      await create(physical(site, { urlSlug: 'my-special-mug' })),
      409,
      'CONFLICT',
      'URL_SLUG_UNAVAILABLE',
      /urlSlug/,
    );
  });

  test('refuses urlSlugs that are not alphanumerics with single hyphens', async () => {
    for (const slug of ['a--b', '-a', 'a-', 'a b', 'ä', 'a_b']) {
      invalid(await create(physical(site, { urlSlug: slug })), /^urlSlug: /);
    }
  });

  test('trims SKUs', async () => {
    const product = await createProduct(site, physical(site, { variants: [variant('  TRIM-ME  ')] }));
    assert.equal(product.variants[0].sku, 'TRIM-ME');
  });

  test('creates variants with attributes in the order given', async () => {
    const product = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size', 'Color'],
        variants: [
          variant('TS-S-R', { attributes: { Size: 'S', Color: 'Red' } }),
          variant('TS-M-R', { attributes: { Size: 'M', Color: 'Red' } }),
        ],
      }),
    );
    assert.deepEqual(product.variantAttributes, ['Size', 'Color']);
    assert.deepEqual(
      product.variants.map((v: { sku: string }) => v.sku),
      ['TS-S-R', 'TS-M-R'],
    );
    assert.deepEqual(product.variants[1].attributes, { Size: 'M', Color: 'Red' });
  });

  test('accepts shippingMeasurements in place of measurements, in the website units', async () => {
    const m = {
      weight: { unit: 'POUND', value: 1.5 },
      dimensions: { unit: 'INCH', length: 1, width: 2, height: 3 },
    };
    const product = await createProduct(
      site,
      physical(site, { variants: [variant('SHIP-1', { shippingMeasurements: m })] }),
    );
    assert.deepEqual(product.variants[0].measurements, m);
    assert.deepEqual(product.variants[0].shippingMeasurements, m);
  });
});

describe('bounds of product creation, at the limit and one past it', () => {
  test('name: 200 characters pass, 201 fail', async () => {
    assert.equal((await createProduct(site, physical(site, { name: 'n'.repeat(200) }))).name.length, 200);
    invalid(await create(physical(site, { name: 'n'.repeat(201) })), /^name: at most 200 characters$/);
  });

  test('description: 102400 characters pass, 102401 fail', async () => {
    assert.equal(
      (await createProduct(site, physical(site, { description: 'd'.repeat(102_400) }))).description.length,
      102_400,
    );
    invalid(
      await create(physical(site, { description: 'd'.repeat(102_401) })),
      /^description: at most 102400 characters$/,
    );
  });

  test('urlSlug: 200 characters pass, 201 fail', async () => {
    assert.equal(
      (await createProduct(site, physical(site, { urlSlug: 's'.repeat(200) }))).urlSlug.length,
      200,
    );
    invalid(await create(physical(site, { urlSlug: 's'.repeat(201) })), /^urlSlug: at most 200 characters$/);
  });

  test('variants: 0 fail, 100 pass, 101 fail', async () => {
    invalid(await create(physical(site, { variants: [] })), /^variants: 1 to 100 items$/);
    const hundred = Array.from({ length: 100 }, (_, i) =>
      variant(`HUNDRED-${i}`, { attributes: { n: String(i) } }),
    );
    assert.equal(
      (await createProduct(site, physical(site, { variantAttributes: ['n'], variants: hundred }))).variants
        .length,
      100,
    );
    const more = Array.from({ length: 101 }, (_, i) =>
      variant(`MORE-${i}`, { attributes: { n: String(i) } }),
    );
    invalid(
      await create(physical(site, { variantAttributes: ['n'], variants: more })),
      /^variants: at most 100 items$/,
    );
  });

  test('sku: 60 characters pass, 61 fail, blank fails', async () => {
    assert.equal(
      (await createProduct(site, physical(site, { variants: [variant('k'.repeat(60))] }))).variants[0].sku
        .length,
      60,
    );
    invalid(
      await create(physical(site, { variants: [variant('k'.repeat(61))] })),
      /^variants\[0\]\.sku: at most 60 characters$/,
    );
    invalid(
      await create(physical(site, { variants: [variant('   ')] })),
      /^variants\[0\]\.sku: must not be empty$/,
      'MISSING_ARGUMENT',
    );
  });

  test('attributes: six pairs pass, seven fail; 100 characters per key and value pass, 101 fail', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const six = Object.fromEntries(names.map((n) => [n, 'x']));
    assert.equal(
      (
        await createProduct(
          site,
          physical(site, { variantAttributes: names, variants: [variant('SIX', { attributes: six })] }),
        )
      ).variants.length,
      1,
    );
    invalid(
      await create(physical(site, { variantAttributes: [...names, 'g'], variants: [variant('SEVEN')] })),
      /^variantAttributes: at most 6 items$/,
    );
    invalid(
      await create(
        physical(site, {
          variantAttributes: names,
          variants: [variant('SEVEN2', { attributes: { ...six, g: 'x' } })],
        }),
      ),
      /^variants\[0\]\.attributes: at most 6 entries$/,
    );
    const key = 'k'.repeat(100);
    const value = 'v'.repeat(100);
    assert.ok(
      await createProduct(
        site,
        physical(site, {
          variantAttributes: [key],
          variants: [variant('LONG', { attributes: { [key]: value } })],
        }),
      ),
    );
    invalid(
      await create(
        physical(site, {
          variantAttributes: [key],
          variants: [variant('LONG2', { attributes: { [key]: `${value}v` } })],
        }),
      ),
      /at most 100 characters/,
    );
    invalid(
      await create(physical(site, { variantAttributes: [`${key}k`], variants: [variant('LONG3')] })),
      /^variantAttributes\[0\]: at most 100 characters$/,
    );
  });

  test('money: at most 1,000,000 and the currency precision', async () => {
    const priced = (value: string) =>
      physical(site, {
        variants: [variant(`P-${value}-${Math.random()}`, { pricing: { basePrice: money(value) } })],
      });
    assert.equal(
      (await createProduct(site, priced('1000000'))).variants[0].pricing.basePrice.value,
      '1000000.00',
    );
    assert.equal((await createProduct(site, priced('0'))).variants[0].pricing.basePrice.value, '0.00');
    invalid(await create(priced('1000000.01')), /basePrice\.value: at most 1000000/);
    invalid(await create(priced('1.234')), /basePrice\.value: USD allows at most 2 decimal places/);
    invalid(await create(priced('-1')), /basePrice\.value: must be a decimal string/);
    invalid(await create(priced('1e3')), /basePrice\.value: must be a decimal string/);
  });
});

describe('rules of product creation', () => {
  test('storePageId must name a store page of this website', async () => {
    invalid(
      await create(physical(site, { storePageId: 'ffffffffffffffffffffffff' })),
      /storePageId/,
      'STORE_PAGE_NOT_FOUND',
    );
    const other = await ctx.site();
    invalid(
      await create(physical(site, { storePageId: other.storePageId })),
      /storePageId/,
      'STORE_PAGE_NOT_FOUND',
    );
  });

  test('type and storePageId are required; type must be PHYSICAL or DIGITAL', async () => {
    invalid(await create({ storePageId: site.storePageId }), /^type: is required$/, 'MISSING_ARGUMENT');
    invalid(await create({ type: 'PHYSICAL' }), /^storePageId: is required$/, 'MISSING_ARGUMENT');
    invalid(await create(physical(site, { type: 'SERVICE' })), /^type: /);
  });

  test('a PHYSICAL product needs variants and has no product pricing', async () => {
    invalid(
      await create(physical(site, { variants: undefined })),
      /^variants: is required/,
      'MISSING_ARGUMENT',
    );
    invalid(
      await create(physical(site, { pricing: { basePrice: money('1') } })),
      /^pricing: a PHYSICAL product has no product-level pricing/,
    );
  });

  test('two or more variants need variantAttributes, with unique value combinations', async () => {
    invalid(
      await create(physical(site, { variants: [variant('TWO-1'), variant('TWO-2')] })),
      /^variantAttributes: required/,
      'MISSING_ARGUMENT',
    );
    invalid(
      await create(
        physical(site, {
          variantAttributes: ['Size'],
          variants: [
            variant('DUP-1', { attributes: { Size: 'S' } }),
            variant('DUP-2', { attributes: { Size: 'S' } }),
          ],
        }),
      ),
      /^variants\[1\]\.attributes: same values as variants\[0\]\.attributes$/,
    );
  });

  test("every variant's attribute keys equal variantAttributes", async () => {
    const body = (attributes: Record<string, string>) =>
      physical(site, {
        variantAttributes: ['Size'],
        variants: [variant(`KEYS-${Math.random()}`, { attributes })],
      });
    invalid(
      await create(body({})),
      /^variants\[0\]\.attributes: needs a value for "Size"$/,
      'MISSING_ARGUMENT',
    );
    invalid(await create(body({ Size: 'S', Color: 'Red' })), /"Color" is not one of/);
    invalid(
      await create(physical(site, { variantAttributes: ['Size', 'Size'] })),
      /^variantAttributes\[1\]: "Size" is listed twice$/,
    );
  });

  test('SKUs are unique within the request and within the website (409 SKU_UNAVAILABLE)', async () => {
    invalid(
      await create(
        physical(site, {
          variantAttributes: ['n'],
          variants: [
            variant('SAME', { attributes: { n: '1' } }),
            variant(' SAME ', { attributes: { n: '2' } }),
          ],
        }),
      ),
      /^variants\[1\]\.sku: same SKU as variants\[0\]\.sku$/,
    );
    await createProduct(site, physical(site, { variants: [variant('TAKEN-SKU')] }));
    assertError(
      await create(physical(site, { variants: [variant('TAKEN-SKU')] })),
      409,
      'CONFLICT',
      'SKU_UNAVAILABLE',
      /variants\[0\]\.sku/,
    );
    const other = await ctx.site();
    const res = await other.call({
      method: 'POST',
      url: '/1.1/commerce/products',
      payload: physical(other, { variants: [variant('TAKEN-SKU')] }),
    });
    assert.equal(res.statusCode, 201, 'another website may use the same SKU');
  });

  test('prices must be in the website currency (CURRENCY_MISMATCH)', async () => {
    invalid(
      await create(
        physical(site, { variants: [variant('EUR-1', { pricing: { basePrice: money('1.00', 'EUR') } })] }),
      ),
      /must be the website currency USD/,
      'CURRENCY_MISMATCH',
    );
  });

  test('a sale needs a sale price', async () => {
    invalid(
      await create(
        physical(site, {
          variants: [variant('SALE-1', { pricing: { basePrice: money('5'), onSale: true } })],
        }),
      ),
      /salePrice: is required when onSale is true/,
      'MISSING_ARGUMENT',
    );
  });

  test('measurement units must fit the website standard (MEASUREMENT_STANDARD_MISMATCH)', async () => {
    const kg = { weight: { unit: 'KILOGRAM', value: 1 } };
    invalid(
      await create(physical(site, { variants: [variant('KG-1', { measurements: kg })] })),
      /KILOGRAM does not fit the website's IMPERIAL/,
      'MEASUREMENT_STANDARD_MISMATCH',
    );
    const metric = await ctx.site({ measurementStandard: 'METRIC', currency: 'EUR' });
    const res = await metric.call({
      method: 'POST',
      url: '/1.1/commerce/products',
      payload: physical(metric, {
        variants: [variant('KG-2', { measurements: kg, pricing: { basePrice: money('1', 'EUR') } })],
      }),
    });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.json().variants[0].measurements.weight, { unit: 'KILOGRAM', value: 1 });
    assert.equal(res.json().variants[0].measurements.dimensions.unit, 'CENTIMETER');
  });

  test('measurements and shippingMeasurements that differ are refused', async () => {
    const a = { weight: { unit: 'POUND', value: 1 } };
    const b = { weight: { unit: 'POUND', value: 2 } };
    invalid(
      await create(
        physical(site, { variants: [variant('DIFF-1', { measurements: a, shippingMeasurements: b })] }),
      ),
      /shippingMeasurements: differs/,
    );
  });

  test('values of the wrong type are refused, not coerced', async () => {
    invalid(await create(physical(site, { name: 12 })), /^name: must be a string$/);
    invalid(await create(physical(site, { isVisible: 'true' })), /^isVisible: must be a boolean$/);
    invalid(
      await create(physical(site, { variants: [variant('Q-1', { stock: { quantity: 1.5 } })] })),
      /^variants\[0\]\.stock\.quantity: must be an integer$/,
    );
    invalid(
      await create(physical(site, { variants: [variant('Q-2', { stock: { quantity: -1 } })] })),
      /^variants\[0\]\.stock\.quantity: at least 0$/,
    );
  });

  test('a failed create writes nothing: not the product, not an earlier variant', async () => {
    const before = (
      await ctx.db
        .selectFrom('variants')
        .select(({ fn }) => fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
    invalid(
      await create(
        physical(site, {
          variantAttributes: ['n'],
          variants: [
            variant('ATOMIC-1', { attributes: { n: '1' } }),
            variant('ATOMIC-2', { attributes: { n: '1' } }),
          ],
        }),
      ),
      /same values/,
    );
    const after = (
      await ctx.db
        .selectFrom('variants')
        .select(({ fn }) => fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;
    assert.equal(Number(after), Number(before));
  });
});

describe('create a digital product', () => {
  test('has product-level pricing and no variants', async () => {
    const product = await createProduct(
      site,
      digital(site, { pricing: { basePrice: money('5'), salePrice: money('4'), onSale: true } }),
    );
    assertShape(Product, product);
    assert.equal(product.type, 'DIGITAL');
    assert.deepEqual(product.pricing, { basePrice: money('5.00'), salePrice: money('4.00'), onSale: true });
    assert.deepEqual(product.variants, []);
    assert.deepEqual(product.variantAttributes, []);
    assert.equal(product.digitalGood, null);
  });

  test('needs pricing and takes no variants or variantAttributes', async () => {
    invalid(
      await create(digital(site, { pricing: undefined })),
      /^pricing: is required for DIGITAL products$/,
      'MISSING_ARGUMENT',
    );
    invalid(
      await create(digital(site, { variants: [variant('D-1')] })),
      /^variants: a DIGITAL product has no variants$/,
    );
    invalid(
      await create(digital(site, { variantAttributes: ['Size'] })),
      /^variantAttributes: a DIGITAL product has no variantAttributes$/,
    );
  });
});
