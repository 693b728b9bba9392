/**
 * Where stores live: each website's under /s/<websiteId> (shared/store-urls.ts), in the API's
 * urls and in the store's own links; what names no store of this website is a store 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createStorePage } from '../src/sites/store-pages.service.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { pathOf, storeGetter } from './helpers/storefront.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;

before(async () => {
  ctx = await testApp();
  site = await ctx.site();
});
after(() => ctx.close());

const get = storeGetter(() => ctx.app);
const store = (s: Site = site) => `/s/${s.websiteId}`;
const shown = (product: Record<string, unknown>) => createProduct(site, { isVisible: true, ...product });

describe('addresses', () => {
  test("a product's url is under its website's own store root, and the store answers there", async () => {
    const product = await shown(physical(site, { name: 'Linen Shirt' }));
    assert.equal(product.url, `https://api.emporium.test/s/${site.websiteId}/shop/p/linen-shirt`);
    const page = await get(pathOf(product));
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Linen Shirt<\/h1>/);
    const website = await site.call({ method: 'GET', url: '/1.1/authorization/website' });
    assert.equal(website.json().url, `https://api.emporium.test/s/${site.websiteId}`);
    const front = await get(store());
    assert.match(front.body, new RegExp(`<a href="/s/${site.websiteId}/shop">Shop</a>`));
  });

  test("another website's product, an unknown store and a malformed id: store-styled 404s", async () => {
    const other = await ctx.site();
    const theirs = await createProduct(other, physical(other, { name: 'Theirs', isVisible: true }));
    const urls = [
      `${store()}/shop/p/${theirs.urlSlug}`,
      `/s/${'0'.repeat(24)}`,
      '/s/not-a-website/shop',
      `${store()}/no-such-page`,
    ];
    for (const url of urls) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /text\/html/);
      assert.match(res.body, /<h1>Page not found<\/h1>/);
    }
    assert.equal((await get(pathOf(theirs))).statusCode, 200, 'it is shown in its own store');
  });
  test('a store page never takes a slug of the store\'s own paths: one titled "Cart" is cart-2', async () => {
    const s = await ctx.site();
    await createStorePage(ctx.api, { websiteId: s.websiteId, title: 'Cart' });
    const front = await get(store(s));
    assert.match(front.body, new RegExp(`<a href="/s/${s.websiteId}/cart-2">Cart</a>`));
    const list = await get(`${store(s)}/cart-2`);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /<h1>Cart<\/h1>/);
  });
});
