import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestBrowser } from './helpers/browser.ts';
import { connectApp } from './helpers/webhooks.ts';
import { createProduct, money, physical, variant } from './helpers/factories.ts';
import { apiProduct, ownerOf, uploadFromPage, type ApiVariant } from './helpers/owner-products.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** The owner's product pages: the grid and its search, creating and editing a product. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
});
after(async () => {
  await ctx.close();
});

const productIdOf = (location: unknown) => /\/products\/([0-9a-f]{24})/.exec(String(location))![1]!;

describe('the product grid', () => {
  test('shows each product with its thumbnail, type, price, stock and visibility', async () => {
    const site = await ctx.site();
    const shirt = await createProduct(
      site,
      physical(site, {
        name: 'Linen <Shirt>',
        isVisible: true,
        variants: [variant('SHIRT-1', { stock: { quantity: 4 }, pricing: { basePrice: money('39.00') } })],
      }),
    );
    await createProduct(site, physical(site, { name: 'Empty mug', variants: [variant('MUG-0')] }));
    const upload = await uploadFromPage(ctx, site, shirt.id, 'front.png');
    await ctx.imageProcessed(upload);
    const browser = await ownerOf(ctx, site);
    const res = await browser.get(`/sites/${site.websiteId}/products`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(
      res.body,
      /<h2><a href="\/sites\/[0-9a-f]+\/products\/[0-9a-f]{24}">Linen &lt;Shirt&gt;<\/a><\/h2>/,
    );
    assert.match(
      res.body,
      new RegExp(`<img\\s+class="thumb"\\s+src="/images/${upload}\\?format=100w"\\s+alt="front"`),
    );
    assert.match(res.body, /Physical · Visible/);
    assert.match(res.body, /Physical · Hidden/);
    assert.match(res.body, /39\.00 USD/);
    assert.match(res.body, /Stock: 4 in stock/);
    assert.match(res.body, /Stock: Sold out/);
    assert.match(res.body, /aria-label="No image"/);
  });

  test('searches by name or SKU and filters by type', async () => {
    const site = await ctx.site();
    await createProduct(site, physical(site, { name: 'Blue Mug', variants: [variant('MUG-BLUE')] }));
    await createProduct(site, physical(site, { name: 'Tea towel', variants: [variant('TOWEL-9')] }));
    const card = await site.call({
      method: 'POST',
      url: '/v2/commerce/products',
      payload: {
        type: 'GIFT_CARD',
        storePageId: site.storePageId,
        name: 'Gift card',
        variants: [{ sku: 'GIFT-25', pricing: { basePrice: money('25.00') } }],
      },
    });
    assert.equal(card.statusCode, 201, card.body);
    const browser = await ownerOf(ctx, site);
    const names = async (query: string) => {
      const res = await browser.get(`/sites/${site.websiteId}/products?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return [...res.body.matchAll(/<h2><a href="[^"]+">([^<]+)<\/a><\/h2>/g)].map((m) => m[1]).sort();
    };
    assert.deepEqual(await names(''), ['Blue Mug', 'Gift card', 'Tea towel']);
    assert.deepEqual(await names('query=mug'), ['Blue Mug']);
    assert.deepEqual(await names('query=towel-9'), ['Tea towel']);
    assert.match(browser.lastPage, /name="query"\s+value="towel-9"/, 'the search stays in its field');
    assert.deepEqual(await names('type=GIFT_CARD'), ['Gift card']);
    assert.match(browser.lastPage, /<option value="GIFT_CARD" selected>/);
    assert.deepEqual(await names('type=DIGITAL'), []);
    assert.match(browser.lastPage, /No products match this search/);
    assert.equal((await browser.get(`/sites/${site.websiteId}/products?type=SHOES`)).statusCode, 400);
    const long = await browser.get(`/sites/${site.websiteId}/products?query=${'a'.repeat(201)}`);
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /query: at most 200 characters/);
  });

  test("another owner's site is a 404, its products too; signed out goes to sign-in", async () => {
    const mine = await ctx.site();
    const theirs = await ctx.site();
    const product = await createProduct(theirs, physical(theirs));
    const browser = await ownerOf(ctx, mine);
    await browser.get(`/sites/${mine.websiteId}/products`);
    const csrf = browser.csrf;
    assert.equal((await browser.get(`/sites/${theirs.websiteId}/products`)).statusCode, 404);
    assert.equal((await browser.get(`/sites/${theirs.websiteId}/products/${product.id}`)).statusCode, 404);
    const post = await browser.post(`/sites/${theirs.websiteId}/products/${product.id}`, {
      csrf,
      name: 'Mine',
    });
    assert.equal(post.statusCode, 404);
    assert.equal((await browser.get(`/sites/${mine.websiteId}/products/${product.id}`)).statusCode, 404);
    assert.equal((await apiProduct(theirs, product.id)).product.name, 'Mug');
    const anonymous = new TestBrowser(ctx.app);
    const res = await anonymous.get(`/sites/${mine.websiteId}/products`);
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers.location), /^\/login\?next=/);
  });
});

describe('creating a product', () => {
  test('with two variants and their options, through the same service as the API', async () => {
    const site = await ctx.site();
    const browser = await ownerOf(ctx, site);
    await browser.get(`/sites/${site.websiteId}/products/new`);
    const more = await browser.post(`/sites/${site.websiteId}/products`, {
      csrf: browser.csrf,
      action: 'add-row',
      rows: '1',
      name: 'Tee',
    });
    assert.equal(more.statusCode, 200);
    assert.match(more.body, /<legend>Variant 2<\/legend>/);
    assert.match(more.body, /name="name"\s+value="Tee"/, 'the values stay');
    const res = await browser.post(`/sites/${site.websiteId}/products`, {
      csrf: browser.csrf,
      action: 'create',
      rows: '3',
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name: 'Tee',
      description: '<p>Soft</p><script>alert(1)</script>',
      isVisible: 'on',
      variantAttributes: 'Size, Colour',
      seoTitle: 'The tee',
      'v0.sku': 'TEE-S-RED',
      'v0.price': '20.00',
      'v0.stock': '3',
      'v0.options': 'S, Red',
      'v1.sku': 'TEE-M-RED',
      'v1.price': '22.00',
      'v1.salePrice': '18.00',
      'v1.onSale': 'on',
      'v1.unlimited': 'on',
      'v1.options': 'M, Red',
    });
    assert.equal(res.statusCode, 303, res.body);
    const id = productIdOf(res.headers.location);
    const { product } = await apiProduct(site, id);
    assert.equal(product.name, 'Tee');
    assert.equal(product.description, '<p>Soft</p>');
    assert.equal(product.isVisible, true);
    assert.deepEqual(product.variantAttributes, ['Size', 'Colour']);
    assert.deepEqual(product.seoOptions, { title: 'The tee', description: null });
    assert.deepEqual(
      product.variants.map((v: ApiVariant) => [
        v.sku,
        v.attributes,
        v.pricing.basePrice.value,
        v.pricing.onSale,
        v.stock,
      ]),
      [
        ['TEE-S-RED', { Size: 'S', Colour: 'Red' }, '20.00', false, { quantity: 3, unlimited: false }],
        ['TEE-M-RED', { Size: 'M', Colour: 'Red' }, '22.00', true, { quantity: 0, unlimited: true }],
      ],
    );
    const shown = await browser.get(String(res.headers.location));
    assert.match(shown.body, /role="status">The product was created\./);
  });

  test('a refused product shows the message beside its field with the values kept, and creates nothing', async () => {
    const site = await ctx.site();
    const browser = await ownerOf(ctx, site);
    await browser.get(`/sites/${site.websiteId}/products/new`);
    const form = {
      csrf: browser.csrf,
      action: 'create',
      rows: '2',
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name: 'Cap',
      variantAttributes: 'Size',
      'v0.sku': 'CAP-1',
      'v0.price': '12.5',
      'v0.options': 'S',
      'v1.sku': 'CAP-2',
      'v1.price': 'twelve',
      'v1.options': 'M',
    };
    const res = await browser.post(`/sites/${site.websiteId}/products`, form);
    assert.equal(res.statusCode, 400);
    assert.match(
      res.body,
      /id="new-v1-price-error" role="alert">must be a decimal string such as &quot;12\.95&quot;/,
    );
    assert.match(res.body, /aria-describedby="new-v1-price-hint new-v1-price-error"/);
    assert.match(res.body, /name="v1\.price"\s+value="twelve"/);
    assert.match(res.body, /name="v0\.sku"\s+value="CAP-1"/);
    const twins = await browser.post(`/sites/${site.websiteId}/products`, {
      ...form,
      'v1.price': '1',
      'v1.options': 'S',
    });
    assert.equal(twins.statusCode, 400);
    assert.match(
      twins.body,
      /id="new-v1-options-error" role="alert">same values as variants\[0\]\.attributes/,
    );
    const long = await browser.post(`/sites/${site.websiteId}/products`, {
      ...form,
      'v1.price': '1',
      name: 'x'.repeat(201),
    });
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /id="new-name-error" role="alert">at most 200 characters/);
    const list = await site.call({ method: 'GET', url: '/v2/commerce/products' });
    assert.deepEqual(list.json().products, []);
  });
});

describe('editing a product', () => {
  test('the details save through updateProduct and queue product.update for a subscribed app', async () => {
    const connected = await connectApp(ctx, ['website.products']);
    const site = connected.site;
    const subscribed = await connected.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: 'https://hooks.example.com/products',
      topics: ['product.update'],
    });
    assert.equal(subscribed.statusCode, 201, subscribed.body);
    const product = await createProduct(site, physical(site, { name: 'Mug' }));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const page = await browser.get(url);
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.match(page.body, /<script src="\/assets\/product-images\.js" defer><\/script>/);
    const res = await browser.post(url, {
      csrf: browser.csrf,
      name: 'Big mug',
      description: 'Holds <b>a lot</b>',
      urlSlug: product.urlSlug,
      seoTitle: '',
      seoDescription: 'A big mug',
    });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, `${url}?saved=details`);
    const after = (await apiProduct(site, product.id)).product;
    assert.equal(after.name, 'Big mug');
    assert.equal(after.description, 'Holds <b>a lot</b>');
    assert.equal(after.isVisible, false);
    assert.deepEqual(after.seoOptions, { title: null, description: 'A big mug' });
    const deliveries = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['topic', 'body'])
      .where('website_id', '=', site.websiteId)
      .execute();
    assert.deepEqual(
      deliveries.map((d) => [d.topic, JSON.parse(d.body).data]),
      [['product.update', { productId: product.id }]],
    );
  });

  test('a refused change shows the form again beside the field and changes nothing', async () => {
    const site = await ctx.site();
    const taken = await createProduct(site, physical(site, { variants: [variant('TAKEN-1')] }));
    const product = await createProduct(site, physical(site, { variants: [variant('MINE-1')] }));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    await browser.get(url);
    const variantId = product.variants[0].id;
    const res = await browser.post(`${url}/variants/${variantId}`, {
      csrf: browser.csrf,
      sku: 'TAKEN-1',
      price: '11.00',
    });
    assert.equal(res.statusCode, 409);
    assert.match(
      res.body,
      new RegExp(`id="variant-${variantId}-sku-error" role="alert">&quot;TAKEN-1&quot; is used`),
    );
    assert.match(res.body, /name="price"\s+value="11\.00"/);
    const slug = await browser.post(url, { csrf: browser.csrf, name: 'Other', urlSlug: taken.urlSlug });
    assert.equal(slug.statusCode, 409);
    assert.match(slug.body, /id="details-urlSlug-error" role="alert">/);
    const after = (await apiProduct(site, product.id)).product;
    assert.equal(after.name, 'Mug');
    assert.equal(after.variants[0].sku, 'MINE-1');
    assert.equal(after.variants[0].pricing.basePrice.value, '10.00');
  });
});
