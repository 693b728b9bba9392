import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProduct, physical } from './helpers/factories.ts';
import { kept, NO_METRIC_MEASUREMENTS } from './helpers/owner-product-fields.ts';
import { apiProduct, ownerOf } from './helpers/owner-products.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * The owner's product forms set every field the API can on a product: its address and tags on a
 * new one, its tags with its details, and its variants' GTIN, MPN and shipping measurements (in
 * the site's units) on a new product's rows; each read back through the API, each refusal shown
 * beside its field with nothing changed. Its variants' own forms: owner-product-variant-fields.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(async () => {
  await ctx.close();
});

const productIdOf = (location: unknown) => /\/products\/([0-9a-f]{24})/.exec(String(location))![1]!;

describe('a new product', () => {
  test('takes tags, an address, and each variant’s GTIN, MPN and measurements in the site’s units', async () => {
    const site = await ctx.site({ measurementStandard: 'METRIC' });
    const browser = await ownerOf(ctx, site);
    const page = await browser.get(`/sites/${site.websiteId}/products/new`);
    for (const label of ['Tags', 'Address in the store', 'GTIN', 'MPN']) {
      assert.match(page.body, new RegExp(`<label for="[^"]+">${label}</label>`));
    }
    assert.match(page.body, /<legend>Shipping measurements<\/legend>/);
    for (const label of ['Weight \\(kg\\)', 'Length \\(cm\\)', 'Width \\(cm\\)', 'Height \\(cm\\)']) {
      assert.match(page.body, new RegExp(`<label for="new-v0-[a-z]+">${label}</label>`));
    }
    const res = await browser.post(`/sites/${site.websiteId}/products`, {
      csrf: browser.csrf,
      action: 'create',
      rows: '2',
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name: 'Kettle',
      urlSlug: 'steel-kettle',
      tags: 'kitchen, steel ,, gifts',
      variantAttributes: 'Size',
      'v0.sku': 'KETTLE-1L',
      'v0.price': '30.00',
      'v0.options': '1 l',
      'v0.gtin': '0123-4567-8901-28',
      'v0.mpn': 'KT 100',
      'v0.weight': '1.25',
      'v0.length': '20',
      'v0.width': '15.5',
      'v0.height': '.5',
      'v1.sku': 'KETTLE-2L',
      'v1.price': '40.00',
      'v1.options': '2 l',
    });
    assert.equal(res.statusCode, 303, res.body);
    const { product } = await apiProduct(site, productIdOf(res.headers.location));
    assert.deepEqual(product.tags, ['kitchen', 'steel', 'gifts']);
    assert.equal(product.urlSlug, 'steel-kettle');
    const [first, second] = product.variants;
    assert.equal(first.gtin, '0123-4567-8901-28');
    assert.equal(first.mpn, 'KT 100');
    assert.deepEqual(first.shippingMeasurements, {
      weight: { unit: 'KILOGRAM', value: 1.25 },
      dimensions: { unit: 'CENTIMETER', length: 20, width: 15.5, height: 0.5 },
    });
    assert.equal(second.gtin, null);
    assert.equal(second.mpn, null);
    assert.deepEqual(second.shippingMeasurements, NO_METRIC_MEASUREMENTS);
    // 1.1 names the same measurements `measurements` too.
    const old = await site.call({ method: 'GET', url: `/1.1/commerce/products/${product.id}` });
    assert.equal(old.json().products[0].variants[0].measurements.weight.value, 1.25);
  });

  test('a field refused shows its message beside it, the values kept, and nothing is created', async () => {
    const site = await ctx.site({ measurementStandard: 'METRIC' });
    const browser = await ownerOf(ctx, site);
    await browser.get(`/sites/${site.websiteId}/products/new`);
    const form = {
      csrf: browser.csrf,
      action: 'create',
      rows: '1',
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name: 'Kettle',
      'v0.sku': 'KETTLE-1',
      'v0.price': '30.00',
    };
    const refused = async (change: Record<string, string>, field: string, message: RegExp) => {
      const res = await browser.post(`/sites/${site.websiteId}/products`, { ...form, ...change });
      assert.equal(res.statusCode, 400, res.body);
      const id = `new-${field.replace('.', '-')}`;
      assert.match(res.body, new RegExp(`id="${id}-error" role="alert">${message.source}`));
      for (const [name, value] of Object.entries(change)) {
        if (name !== 'type') assert.ok(kept(res.body, name, value), `${name} kept: ${res.body}`);
      }
      return res;
    };
    await refused({ 'v0.gtin': '12345' }, 'v0.gtin', /a GTIN has 8, 12, 13 or 14 digits/);
    await refused({ 'v0.mpn': 'KT/100' }, 'v0.mpn', /an MPN is 1 to 70 letters and digits/);
    await refused({ 'v0.weight': 'heavy' }, 'v0.weight', /must be a number/);
    await refused({ 'v0.height': '-2' }, 'v0.height', /at least 0/);
    await refused({ 'v0.length': '1000001' }, 'v0.length', /at most 1000000/);
    await refused({ tags: `ok, ${'t'.repeat(101)}` }, 'tags', /at most 100 characters/);
    await refused({ urlSlug: 'no spaces' }, 'urlSlug', /only letters, digits and single hyphens/);
    // A SERVICE product's variants take none of them: the API's rule, beside the field or group.
    await refused(
      { type: 'SERVICE', 'v0.gtin': '01234567890128' },
      'v0.gtin',
      /a SERVICE product&#39;s variants have no gtin/,
    );
    const group = await refused(
      { type: 'SERVICE', 'v0.weight': '2' },
      'v0.measurements',
      /a SERVICE product&#39;s variants have no shippingMeasurements/,
    );
    assert.match(
      group.body,
      /<fieldset\s+aria-describedby="new-v0-measurements-hint new-v0-measurements-error"/,
    );
    const list = await site.call({ method: 'GET', url: '/v2/commerce/products' });
    assert.deepEqual(list.json().products, []);
  });
});

describe("a product's details", () => {
  test('tags are set and cleared with the details; a tag holding a comma is kept when not edited', async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site, { tags: ['mugs', 'tea, coffee'] }));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const page = await browser.get(url);
    assert.match(page.body, /name="tags"\s+value="mugs, tea, coffee"/);
    const details = { csrf: browser.csrf, name: 'Mug', urlSlug: product.urlSlug };
    const tags = async () => (await apiProduct(site, product.id)).product.tags;
    assert.equal((await browser.post(url, { ...details, tags: 'mugs, tea, coffee' })).statusCode, 303);
    assert.deepEqual(await tags(), ['mugs', 'tea, coffee'], 'left as shown, the tags are not sent');
    const long = await browser.post(url, { ...details, name: 'Renamed', tags: `a, ${'b'.repeat(101)}` });
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /id="details-tags-error" role="alert">at most 100 characters/);
    assert.match(long.body, /name="name"\s+value="Renamed"/);
    assert.equal((await apiProduct(site, product.id)).product.name, 'Mug');
    assert.deepEqual(await tags(), ['mugs', 'tea, coffee']);
    assert.equal((await browser.post(url, { ...details, tags: 'summer,  linen' })).statusCode, 303);
    assert.deepEqual(await tags(), ['summer', 'linen']);
    assert.equal((await browser.post(url, { ...details, tags: '' })).statusCode, 303);
    assert.deepEqual(await tags(), []);
  });
});
