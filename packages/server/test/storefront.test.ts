import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { STORE_COOKIE } from '../src/storefront/csrf.ts';
import { StorePageCache } from '../src/storefront/page-cache.ts';
import { storePageList } from '../src/storefront/storefront.read.ts';
import { changingAfter } from './helpers/between-queries.ts';
import { TestBrowser } from './helpers/browser.ts';
import { createProduct, money, multipartFile, physical, variant } from './helpers/factories.ts';
import { pathOf, storeGetter } from './helpers/storefront.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;
const PRODUCTS = '/1.1/commerce/products';

before(async () => {
  ctx = await testApp({ imageWorkers: 1 });
  site = await ctx.site();
});
after(() => ctx.close());

const get = storeGetter(() => ctx.app);
const store = (s: Site = site) => `/s/${s.websiteId}`;
const shown = (product: Record<string, unknown>) => createProduct(site, { isVisible: true, ...product });
const change = async (id: string, body: object) => {
  const res = await site.call({ method: 'POST', url: `${PRODUCTS}/${id}`, payload: body });
  assert.equal(res.statusCode, 200, res.body);
};

describe('a store page', () => {
  test('lists visible products: name, main image with alt, price, a sale, sold out', async () => {
    const s = await ctx.site();
    const make = (body: Record<string, unknown>) =>
      createProduct(s, physical(s, { isVisible: true, ...body }));
    await make({
      name: 'Plain Mug',
      variants: [variant('PM', { pricing: { basePrice: money('12.50') }, stock: { quantity: 10 } })],
    });
    await make({
      name: 'Sale Mug',
      variants: [
        variant('SM', { pricing: { basePrice: money('20.00'), salePrice: money('15.00'), onSale: true } }),
      ],
    });
    await make({ name: 'Gone Mug', variants: [variant('GM', { stock: { quantity: 0 } })] });
    await make({
      name: 'Endless Mug',
      variants: [variant('EM', { stock: { quantity: 0, unlimited: true } })],
    });
    await createProduct(s, physical(s, { name: 'Secret Mug', isVisible: false }));
    const res = await get(`${store(s)}/shop`);
    assert.equal(res.statusCode, 200);
    const cards = [...res.body.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
    const card = (name: string) => cards.find((c) => c.includes(`<h2>${name}</h2>`)) ?? '';
    assert.match(card('Plain Mug'), /\$12\.50/);
    assert.match(
      card('Sale Mug'),
      /Sale price <\/span>\$15\.00<del><span class="visually-hidden">was <\/span>\$20\.00/,
    );
    assert.match(card('Gone Mug'), /Sold out/);
    assert.doesNotMatch(card('Endless Mug'), /Sold out/);
    assert.doesNotMatch(card('Plain Mug'), /Sold out/);
    assert.ok(!res.body.includes('Secret Mug'), 'a hidden product is not listed');
  });

  test('24 a page, newest first, with Next and Previous links', async () => {
    const s = await ctx.site();
    for (let i = 1; i <= 25; i++) await createProduct(s, physical(s, { name: `Item ${i}`, isVisible: true }));
    const first = await get(`${store(s)}/shop`);
    assert.equal([...first.body.matchAll(/<h2>Item \d+<\/h2>/g)].length, 24);
    assert.match(first.body, /<h2>Item 25<\/h2>/);
    assert.doesNotMatch(first.body, /<h2>Item 1<\/h2>/);
    assert.match(first.body, new RegExp(`href="/s/${s.websiteId}/shop\\?page=2" rel="next">Next`));
    assert.doesNotMatch(first.body, /Previous/);
    const second = await get(`${store(s)}/shop?page=2`);
    assert.deepEqual(
      [...second.body.matchAll(/<h2>(Item \d+)<\/h2>/g)].map((m) => m[1]),
      ['Item 1'],
    );
    assert.match(second.body, new RegExp(`href="/s/${s.websiteId}/shop" rel="prev">Previous`));
    assert.doesNotMatch(second.body, /Next/);
    const bad = await get(`${store(s)}/shop?page=zero`);
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /page: a whole number/);
  });

  test('a product renamed while its page is being read is listed, by its new name', async () => {
    const s = await ctx.site();
    const mug = await createProduct(s, physical(s, { name: 'Old Name', isVisible: true }));
    // The rename lands between the page's query and the reading of its products.
    const { pool, state } = changingAfter(
      ctx.api.pool,
      /order by "products"\."created_on" desc/,
      async () => {
        const res = await s.call({
          method: 'POST',
          url: `${PRODUCTS}/${mug.id}`,
          payload: { name: 'New Name' },
        });
        assert.equal(res.statusCode, 200, res.body);
      },
    );
    const deps = { api: { ...ctx.api, pool }, secure: false, pages: new StorePageCache() };
    const body = await storePageList(deps, s.websiteId, 'shop', 1);
    assert.ok(state.changed);
    assert.match(body, /<h2>New Name<\/h2>/);
  });

  test('a disabled store page and its products answer 404', async () => {
    const s = await ctx.site();
    const product = await createProduct(s, physical(s, { name: 'Boxed', isVisible: true }));
    await ctx.db
      .updateTable('store_pages')
      .set({ is_enabled: false })
      .where('id', '=', s.storePageId)
      .execute();
    assert.equal((await get(`${store(s)}/shop`)).statusCode, 404);
    assert.equal((await get(pathOf(product))).statusCode, 404);
    assert.doesNotMatch((await get(store(s))).body, /\/shop"/, 'the front page does not link it');
  });
});

describe('a product page', () => {
  test('SEO title and description from seoOptions, else the name and an excerpt', async () => {
    const seo = await shown(
      physical(site, { name: 'Tea Pot', seoOptions: { title: 'Best Tea Pot', description: 'Brews well.' } }),
    );
    const withSeo = (await get(pathOf(seo))).body;
    assert.match(withSeo, /<title>Best Tea Pot<\/title>/);
    assert.match(withSeo, /<meta name="description" content="Brews well." \/>/);
    const plain = await shown(physical(site, { name: 'Cup', description: '<p>A <b>sturdy</b> cup.</p>' }));
    const body = (await get(pathOf(plain))).body;
    assert.match(body, /<title>Cup · Test Store<\/title>/);
    assert.match(body, /<meta name="description" content="A sturdy cup." \/>/);
    assert.match(body, /<div class="description"><p>A <b>sturdy<\/b> cup.<\/p><\/div>/);
  });

  test('a description stored before pictures were given alt text shows them with an empty one', async () => {
    const product = await shown(physical(site, { name: 'Old Vase', description: '<p>Glazed.</p>' }));
    // As a row written before the sanitizer added alt="" holds it.
    await ctx.db
      .updateTable('products')
      .set({ description: '<p>Glazed.<img src="https://cdn.example.com/vase.png" /></p>' })
      .where('id', '=', product.id)
      .execute();
    const body = (await get(pathOf(product))).body;
    assert.match(
      body,
      /<div class="description"><p>Glazed.<img src="https:\/\/cdn.example.com\/vase.png" alt="" \/><\/p><\/div>/,
    );
  });

  test('variants by their attributes, price and stock, and an add-to-cart form with the CSRF token', async () => {
    const product = await shown(
      physical(site, {
        name: 'Tee',
        variantAttributes: ['Size'],
        variants: [
          variant('TEE-S', { attributes: { Size: 'S' }, stock: { quantity: 0 } }),
          variant('TEE-M', { attributes: { Size: 'M' }, stock: { quantity: 3 } }),
          variant('TEE-L', { attributes: { Size: 'L' }, stock: { quantity: 50 } }),
        ],
      }),
    );
    const res = await get(pathOf(product));
    const token = /emporium_store=([^;]+)/.exec(String(res.headers['set-cookie']))?.[1];
    assert.ok(token, 'the browser gets a CSRF cookie');
    assert.match(res.body, new RegExp(`<form class="buy" method="post" action="/s/${site.websiteId}/cart">`));
    assert.match(res.body, new RegExp(`<input type="hidden" name="csrf" value="${token}" />`));
    assert.match(res.body, /<label\s*>Size\s*<select name="variantId" required>/);
    const option = (size: string) =>
      new RegExp(`<option value="[^"]+"[^>]*>${size} · \\$10\\.00 · ([^<]+)</option>`);
    assert.equal(option('S').exec(res.body)?.[1], 'Sold out');
    assert.match(res.body, /<option value="[^"]+"\s*disabled>\s*S ·/);
    assert.equal(option('M').exec(res.body)?.[1], 'Only 3 left');
    assert.equal(option('L').exec(res.body)?.[1], 'In stock');
    assert.match(res.body, /<button type="submit" ?>Add to cart<\/button>/);
    // The same browser keeps its token; another gets its own.
    const again = await get(pathOf(product), { cookie: `${STORE_COOKIE}=${token}` });
    assert.equal(again.headers['set-cookie'], undefined);
    assert.match(again.body, new RegExp(`value="${token}"`));
    assert.doesNotMatch((await get(pathOf(product))).body, new RegExp(`value="${token}"`));
  });

  test('a gift card: its amounts to choose from, never sold out, and an Add to cart', async () => {
    const res = await site.call({
      method: 'POST',
      url: '/v2/commerce/products',
      payload: {
        type: 'GIFT_CARD',
        storePageId: site.storePageId,
        name: 'Gift Card',
        urlSlug: 'gift-card',
        isVisible: true,
        variants: ['25.00', '50.00'].map((value) => ({
          sku: `GIFT-${value}`,
          pricing: { basePrice: money(value) },
        })),
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = (await get(pathOf(res.json()))).body;
    assert.match(body, /<form class="buy"/, 'the cart sells gift cards');
    assert.match(body, /<label\s*>Amount\s*<select name="variantId"/);
    assert.deepEqual(
      [...body.matchAll(/<option[^>]*>\s*([^<]*?)\s*<\/option>/g)].map((m) => m[1]),
      ['$25.00', '$50.00'],
    );
    assert.doesNotMatch(body, /Not sold through this online store/);
    assert.match(body, /<p>From \$25\.00<\/p>|<span class="price">From \$25\.00<\/span>/);
    assert.doesNotMatch(body, /Sold out/);
    assert.match(body, /Add to cart<\/button>/);
  });

  test('the add-to-cart form, sent as it is, puts the chosen variant in the cart', async () => {
    const product = await shown(
      physical(site, {
        name: 'Scarf',
        variantAttributes: ['Colour'],
        variants: [
          variant('SCARF-R', { attributes: { Colour: 'Red' }, stock: { quantity: 0 } }),
          variant('SCARF-B', { attributes: { Colour: 'Blue' }, stock: { quantity: 4 } }),
        ],
      }),
    );
    const browser = new TestBrowser(ctx.app);
    await browser.get(pathOf(product));
    const chosen = /<option\s+value="([^"]+)"\s+selected/.exec(browser.lastPage)?.[1];
    assert.equal(chosen, product.variants[1].id, 'the first variant in stock is chosen');
    const added = await browser.post(`${store()}/cart`, {
      csrf: browser.csrf,
      variantId: chosen!,
      quantity: '2',
    });
    assert.equal(added.statusCode, 303, added.body);
    const cart = await browser.get(`${store()}/cart`);
    assert.match(cart.body, /Scarf/);
    assert.match(cart.body, /Blue/);
  });

  test('images: responsive srcset from the widths produced, with the alt text; the product page loads its main one at once', async () => {
    const product = await shown(physical(site, { name: 'Vase' }));
    const bytes = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#a33' } })
      .png()
      .toBuffer();
    const upload = await site.call({
      method: 'POST',
      url: `${PRODUCTS}/${product.id}/images`,
      ...multipartFile('file', 'vase.png', bytes),
    });
    assert.equal(upload.statusCode, 202, upload.body);
    const { imageId } = upload.json();
    await ctx.imageProcessed(imageId);
    const alt = await site.call({
      method: 'POST',
      url: `${PRODUCTS}/${product.id}/images/${imageId}`,
      payload: { altText: 'A red vase on a table' },
    });
    assert.equal(alt.statusCode, 200, alt.body);
    const { widths } = await ctx.db
      .selectFrom('images')
      .select('widths')
      .where('id', '=', imageId)
      .executeTakeFirstOrThrow();
    assert.ok(widths.length > 1);
    const body = (await get(pathOf(product))).body;
    const srcset = widths.map((w) => `/images/${imageId}?format=${w}w ${w}w`).join(', ');
    assert.ok(body.includes(`srcset="${srcset}"`), body);
    assert.match(body, /alt="A red vase on a table"/);
    assert.match(body, /width="1200"\s+height="800"/);
    assert.match(body, /<img[^>]+alt="A red vase on a table"[^>]+loading="eager"/, 'the page opens with it');
    const listed = (await get(`${store()}/shop`)).body;
    assert.match(listed, /<img[^>]+alt="A red vase on a table"[^>]+class="thumb"\s+loading="lazy"/);
  });

  test('a hostile name and SEO text are escaped, never markup', async () => {
    const product = await shown(
      physical(site, {
        name: '<script>alert(1)</script>"><img src=x onerror=alert(2)>',
        urlSlug: 'hostile',
        seoOptions: { title: '</title><script>x</script>', description: '"><script>y</script>' },
      }),
    );
    const body = (await get(pathOf(product))).body;
    assert.doesNotMatch(body, /<script/i);
    assert.doesNotMatch(body, /<img src=x/);
    assert.match(
      body,
      /<h1>&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&gt;&lt;img src=x onerror=alert\(2\)&gt;<\/h1>/,
    );
    assert.match(body, /<title>&lt;\/title&gt;&lt;script&gt;x&lt;\/script&gt;<\/title>/);
  });

  test('headers: a strict Content-Security-Policy, no framing, no shared caching', async () => {
    const product = await shown(physical(site, { name: 'Lamp' }));
    const res = await get(pathOf(product));
    const csp = String(res.headers['content-security-policy']);
    for (const directive of [
      "default-src 'none'",
      "script-src 'none'",
      "style-src 'self'",
      "img-src 'self'",
      "frame-ancestors 'none'",
      "form-action 'self'",
    ]) {
      assert.ok(csp.includes(directive), `${directive} in ${csp}`);
    }
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    assert.match(String(res.headers['set-cookie']), /HttpOnly; Secure; SameSite=Lax/);
    assert.doesNotMatch(res.body, /<script|style="/);
  });

  test('hidden products answer 404; a change through the API shows on the next request', async () => {
    const product = await shown(
      physical(site, { name: 'Kettle', variants: [variant('K-1', { stock: { quantity: 9 } })] }),
    );
    assert.match((await get(pathOf(product))).body, /<h1>Kettle<\/h1>/);
    await change(product.id, { name: 'Steel Kettle' });
    assert.match((await get(pathOf(product))).body, /<h1>Steel Kettle<\/h1>/);
    assert.match((await get(`${store()}/shop`)).body, /<h2>Steel Kettle<\/h2>/);
    await change(product.id, { isVisible: false });
    const hidden = await get(pathOf(product));
    assert.equal(hidden.statusCode, 404);
    assert.match(hidden.body, /Page not found/);
    assert.doesNotMatch((await get(`${store()}/shop`)).body, /Steel Kettle/);
    await change(product.id, { isVisible: true });
    assert.equal((await get(pathOf(product))).statusCode, 200);
  });
});
