import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProduct, digital, physical, variant } from './helpers/factories.ts';
import { apiProduct, ownerOf } from './helpers/owner-products.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** The owner's product pages with every product type, the grid's pages, and deleting a product. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(async () => {
  await ctx.close();
});

const productIdOf = (location: unknown) => /\/products\/([0-9a-f]{24})/.exec(String(location))![1]!;

describe('product types', () => {
  test('a gift card and a download are created from the same form, each as its type takes', async () => {
    const site = await ctx.site();
    const browser = await ownerOf(ctx, site);
    await browser.get(`/sites/${site.websiteId}/products/new`);
    const form = { csrf: browser.csrf, action: 'create', rows: '1', storePageId: site.storePageId };
    const card = await browser.post(`/sites/${site.websiteId}/products`, {
      ...form,
      type: 'GIFT_CARD',
      name: 'Gift card',
      'v0.sku': 'GIFT-25',
      'v0.price': '25.00',
    });
    assert.equal(card.statusCode, 303, card.body);
    const gift = (await apiProduct(site, productIdOf(card.headers.location))).product;
    assert.equal(gift.type, 'GIFT_CARD');
    assert.deepEqual(gift.variants[0].pricing, { basePrice: { currency: 'USD', value: '25.00' } });

    const sale = await browser.post(`/sites/${site.websiteId}/products`, {
      ...form,
      type: 'GIFT_CARD',
      name: 'Gift card on sale',
      'v0.sku': 'GIFT-50',
      'v0.price': '50.00',
      'v0.salePrice': '40.00',
    });
    assert.equal(sale.statusCode, 400);
    assert.match(
      sale.body,
      /id="new-v0-salePrice-error" role="alert">a GIFT_CARD product&#39;s variants have a basePrice only/,
    );

    const download = await browser.post(`/sites/${site.websiteId}/products`, {
      ...form,
      type: 'DIGITAL',
      name: 'E-book',
      'v0.price': '5.5',
    });
    assert.equal(download.statusCode, 303, download.body);
    const book = (await apiProduct(site, productIdOf(download.headers.location))).product;
    assert.equal(book.type, 'DIGITAL');
    assert.equal(book.pricing.basePrice.value, '5.50');
  });

  test("a download's price is edited with its details, and it is deleted as 1.1 deletes it", async () => {
    const site = await ctx.site();
    const book = await createProduct(site, digital(site));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${book.id}`;
    const page = await browser.get(url);
    assert.doesNotMatch(page.body, /<h2 id="variants">/, 'a download has no variants');
    const bad = await browser.post(url, {
      csrf: browser.csrf,
      name: 'E-book',
      urlSlug: book.urlSlug,
      price: '1.234',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /id="details-price-error" role="alert">USD allows at most 2 decimal places/);
    const saved = await browser.post(url, {
      csrf: browser.csrf,
      name: 'E-book',
      urlSlug: book.urlSlug,
      price: '7.00',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal((await apiProduct(site, book.id)).product.pricing.basePrice.value, '7.00');
    const deleted = await browser.post(`${url}/delete`, { csrf: browser.csrf });
    assert.equal(deleted.statusCode, 303, deleted.body);
    assert.equal((await apiProduct(site, book.id)).status, 404);
  });

  test('the description shows in its field exactly as stored', async () => {
    const site = await ctx.site();
    const product = await createProduct(
      site,
      physical(site, { description: '<p>Line one</p>\n<p>Two & "three"</p>' }),
    );
    const browser = await ownerOf(ctx, site);
    const page = await browser.get(`/sites/${site.websiteId}/products/${product.id}`);
    const stored: string = (await apiProduct(site, product.id)).product.description;
    assert.match(stored, /Line one/);
    const escaped = stored
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;');
    // One newline after the start tag, which HTML drops, then the text as stored.
    assert.ok(page.body.includes(`>\n${escaped}</textarea`), page.body);
  });
});

describe("the grid's pages", () => {
  test('50 products a page, with a link to the next that keeps the search', async () => {
    const site = await ctx.site();
    for (let i = 0; i < 51; i++) {
      await createProduct(site, physical(site, { name: `Mug ${i}`, variants: [variant(`MUG-${i}`)] }));
    }
    await createProduct(site, physical(site, { name: 'Towel', variants: [variant('TOWEL-1')] }));
    const browser = await ownerOf(ctx, site);
    const names = (body: string) =>
      [...body.matchAll(/<h2><a href="[^"]+">([^<]+)<\/a><\/h2>/g)].map((m) => m[1]);
    const first = await browser.get(`/sites/${site.websiteId}/products?query=mug`);
    assert.equal(names(first.body).length, 50);
    const next = /href="([^"]+)"\s+rel="next"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(next, 'a link to the next page');
    assert.match(next, /query=mug/);
    const second = await browser.get(next);
    assert.equal(second.statusCode, 200, second.body);
    assert.deepEqual(names(second.body), ['Mug 50']);
    assert.match(second.body, /name="query"\s+value="mug"/);
    assert.doesNotMatch(second.body, /rel="next"/);
  });
});

describe('deleting a product', () => {
  test('asks first, then deletes through the service; the grid says so', async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site, { name: 'Old mug' }));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const confirm = await browser.get(`${url}/delete`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, /Delete <strong>Old mug<\/strong>/);
    assert.equal((await apiProduct(site, product.id)).status, 200, 'showing the question deletes nothing');
    const res = await browser.post(`${url}/delete`, { csrf: browser.csrf });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/sites/${site.websiteId}/products?deleted=1`);
    assert.equal((await apiProduct(site, product.id)).status, 404);
    assert.match((await browser.get(String(res.headers.location))).body, /The product was deleted/);
  });
});
