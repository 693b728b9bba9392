import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProduct, money, physical, variant } from './helpers/factories.ts';
import { kept, NO_METRIC_MEASUREMENTS } from './helpers/owner-product-fields.ts';
import { apiProduct, ownerOf, uploadFromPage } from './helpers/owner-products.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * A product's page sets every field the API can on its variants: a PHYSICAL variant's GTIN, MPN
 * and shipping measurements (in the site's units), on a new variant too, and the image each
 * variant shows, among the product's; each read back through the API, each refusal shown beside
 * its field with nothing changed.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
});
after(async () => {
  await ctx.close();
});

describe("a product's variants", () => {
  test("a variant's GTIN, MPN and measurements are set, cleared and refused beside their fields", async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site, { variants: [variant('LAMP-1')] }));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const page = await browser.get(url);
    const id = product.variants[0].id;
    for (const label of ['Weight \\(lb\\)', 'Length \\(in\\)', 'Width \\(in\\)', 'Height \\(in\\)']) {
      assert.match(page.body, new RegExp(`<label for="variant-${id}-[a-z]+">${label}</label>`));
    }
    const form = { csrf: browser.csrf, sku: 'LAMP-1', price: '10.00' };
    const saved = await browser.post(`${url}/variants/${id}`, {
      ...form,
      gtin: '96385074',
      mpn: 'LMP_2000-b',
      weight: '3.5',
      length: '12',
      width: '8',
      height: '20',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    const shown = async () => (await apiProduct(site, product.id)).product.variants[0];
    let v = await shown();
    assert.deepEqual([v.gtin, v.mpn], ['96385074', 'LMP_2000-b']);
    assert.deepEqual(v.shippingMeasurements, {
      weight: { unit: 'POUND', value: 3.5 },
      dimensions: { unit: 'INCH', length: 12, width: 8, height: 20 },
    });
    const again = await browser.get(url);
    assert.match(again.body, /name="gtin"\s+value="96385074"/);
    assert.match(again.body, /name="weight"\s+value="3\.5"/);

    const refusals: [Record<string, string>, string, RegExp][] = [
      [{ gtin: '123456789' }, 'gtin', /a GTIN has 8, 12, 13 or 14 digits/],
      [{ mpn: 'M'.repeat(71) }, 'mpn', /an MPN is 1 to 70 letters and digits/],
      [{ mpn: 'M'.repeat(201) }, 'mpn', /at most 200 characters/],
      [{ weight: '2 lb' }, 'weight', /must be a number/],
      [{ width: '1e3' }, 'width', /must be a number/],
    ];
    for (const [change, field, message] of refusals) {
      const res = await browser.post(`${url}/variants/${id}`, {
        ...form,
        gtin: '96385074',
        mpn: 'LMP_2000-b',
        weight: '9',
        length: '12',
        width: '8',
        height: '20',
        ...change,
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.body, new RegExp(`id="variant-${id}-${field}-error" role="alert">${message.source}`));
      const [name, value] = Object.entries(change)[0]!;
      assert.ok(kept(res.body, name, value), `${name} kept`);
      assert.match(res.body, /name="weight"\s+value="(9|2 lb)"/, 'the other fields as sent');
    }
    v = await shown();
    assert.deepEqual([v.gtin, v.mpn, v.shippingMeasurements.weight.value], ['96385074', 'LMP_2000-b', 3.5]);

    const untouched = await browser.post(`${url}/variants/${id}`, { ...form, sku: 'LAMP-ONE' });
    assert.equal(untouched.statusCode, 303, untouched.body);
    v = await shown();
    assert.deepEqual(
      [v.sku, v.gtin, v.shippingMeasurements.weight.value],
      ['LAMP-ONE', '96385074', 3.5],
      'a field the form did not send is left as it is',
    );
    const blanks = { gtin: '', mpn: ' ', weight: '', length: '', width: '', height: '' };
    const cleared = await browser.post(`${url}/variants/${id}`, { ...form, ...blanks });
    assert.equal(cleared.statusCode, 303, cleared.body);
    v = await shown();
    assert.deepEqual([v.gtin, v.mpn], [null, null]);
    assert.deepEqual(v.shippingMeasurements, {
      weight: { unit: 'POUND', value: 0 },
      dimensions: { unit: 'INCH', length: 0, width: 0, height: 0 },
    });
  });

  test('a new variant takes them too; a service product’s forms have none of them', async () => {
    const site = await ctx.site({ measurementStandard: 'METRIC' });
    const product = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size'],
        variants: [variant('BAG-S', { attributes: { Size: 'S' } })],
      }),
    );
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    await browser.get(url);
    const bad = await browser.post(`${url}/variants`, {
      csrf: browser.csrf,
      sku: 'BAG-L',
      price: '15.00',
      attr0: 'L',
      gtin: '0',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /id="new-variant-gtin-error" role="alert">a GTIN has/);
    assert.equal((await apiProduct(site, product.id)).product.variants.length, 1);
    const added = await browser.post(`${url}/variants`, {
      csrf: browser.csrf,
      sku: 'BAG-L',
      price: '15.00',
      attr0: 'L',
      mpn: 'BAG-L-01',
      weight: '0.4',
    });
    assert.equal(added.statusCode, 303, added.body);
    const created = (await apiProduct(site, product.id)).product.variants[1];
    assert.deepEqual([created.sku, created.gtin, created.mpn], ['BAG-L', null, 'BAG-L-01']);
    assert.deepEqual(created.shippingMeasurements, {
      ...NO_METRIC_MEASUREMENTS,
      weight: { unit: 'KILOGRAM', value: 0.4 },
    });

    const service = await site.call({
      method: 'POST',
      url: '/v2/commerce/products',
      payload: {
        type: 'SERVICE',
        storePageId: site.storePageId,
        name: 'Lesson',
        variants: [{ sku: 'LESSON-1', pricing: { basePrice: money('50.00') } }],
      },
    });
    assert.equal(service.statusCode, 201, service.body);
    const lesson = await browser.get(`/sites/${site.websiteId}/products/${service.json().id}`);
    assert.equal(lesson.statusCode, 200);
    assert.doesNotMatch(lesson.body, /name="gtin"|name="mpn"|Shipping measurements/);
    assert.match(lesson.body, /<label for="[^"]+">Tags<\/label>/);
  });

  test("a variant's image is chosen among the product's images, or none", async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site, { variants: [variant('VASE-1')] }));
    const other = await createProduct(site, physical(site, { variants: [variant('OTHER-1')] }));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const id = product.variants[0].id;
    const empty = await browser.get(url);
    assert.match(empty.body, /No images to show on this variant yet/);
    assert.doesNotMatch(empty.body, /name="imageId"/);
    const first = await uploadFromPage(ctx, site, product.id, 'front.png');
    const second = await uploadFromPage(ctx, site, product.id, 'side.png');
    const foreign = await uploadFromPage(ctx, site, other.id, 'elsewhere.png');
    for (const image of [first, second, foreign]) await ctx.imageProcessed(image);
    const page = await browser.get(url);
    const select = new RegExp(
      `<label for="variant-image-${id}-imageId">Image shown</label>\\s*<select[\\s\\S]*?</select>`,
    ).exec(page.body)?.[0];
    assert.ok(select, page.body);
    const options = [...select.matchAll(/<option value="([^"]*)"\s*(selected)?>\s*([^<]*?)\s*<\/option>/g)];
    assert.deepEqual(
      options.map((o) => [o[1], o[2] ?? '', o[3]]),
      [
        ['', 'selected', 'None'],
        [first, '', 'Image 1: front'],
        [second, '', 'Image 2: side'],
      ],
    );
    const choose = (imageId: string) =>
      browser.post(`${url}/variants/${id}/image`, { csrf: browser.csrf, imageId });
    const image = async () => (await apiProduct(site, product.id)).product.variants[0].image?.id ?? null;
    const chosen = await choose(second);
    assert.equal(chosen.statusCode, 303, chosen.body);
    assert.equal(chosen.headers.location, `${url}?saved=variant-image`);
    assert.equal(await image(), second);
    const shown = await browser.get(String(chosen.headers.location));
    assert.match(shown.body, /role="status">The variant&#39;s image was saved\./);
    assert.match(shown.body, new RegExp(`<option value="${second}" selected>`));

    const refused = await choose(foreign);
    assert.equal(refused.statusCode, 400);
    assert.match(
      refused.body,
      new RegExp(
        `id="variant-image-${id}-imageId-error" role="alert">${foreign} is not an image of this product`,
      ),
    );
    assert.match(refused.body, /aria-invalid="true"/);
    assert.equal(await image(), second, 'nothing changed');

    assert.equal((await choose('')).statusCode, 303);
    assert.equal(await image(), null);
  });
});
