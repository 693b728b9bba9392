import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { apiProduct, ownerOf, png, uploadFromPage, type ApiVariant } from './helpers/owner-products.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** The owner's product page: variants, stock and images, each through the API's services; CSRF on every form. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
});
after(async () => {
  await ctx.close();
});

describe('variants and stock', () => {
  test('variants: change one, add one, remove one', async () => {
    const site = await ctx.site();
    const product = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size'],
        variants: [variant('CUP-S', { attributes: { Size: 'S' } })],
      }),
    );
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    await browser.get(url);
    const csrf = browser.csrf;
    const id = product.variants[0].id;
    const changed = await browser.post(`${url}/variants/${id}`, {
      csrf,
      sku: 'CUP-SMALL',
      price: '9.00',
      salePrice: '7.50',
      onSale: 'on',
      attr0: 'Small',
    });
    assert.equal(changed.statusCode, 303, changed.body);
    const added = await browser.post(`${url}/variants`, {
      csrf,
      sku: 'CUP-L',
      price: '12.00',
      stock: '2',
      attr0: 'Large',
    });
    assert.equal(added.statusCode, 303, added.body);
    let shown = (await apiProduct(site, product.id)).product;
    assert.deepEqual(
      shown.variants.map((v: ApiVariant) => [
        v.sku,
        v.attributes.Size,
        v.pricing.salePrice.value,
        v.pricing.onSale,
        v.stock.quantity,
      ]),
      [
        ['CUP-SMALL', 'Small', '7.50', true, 0],
        ['CUP-L', 'Large', '0.00', false, 2],
      ],
    );
    const removed = await browser.post(`${url}/variants/${id}/delete`, { csrf });
    assert.equal(removed.statusCode, 303, removed.body);
    shown = (await apiProduct(site, product.id)).product;
    assert.deepEqual(
      shown.variants.map((v: ApiVariant) => v.sku),
      ['CUP-L'],
    );
    const last = await browser.post(`${url}/variants/${shown.variants[0].id}/delete`, { csrf });
    assert.equal(last.statusCode, 409);
    assert.match(last.body, /the only variant of a product cannot be deleted/);
  });

  test('stock: set, add, take away, unlimited; too much taken is refused', async () => {
    const site = await ctx.site();
    const product = await createProduct(
      site,
      physical(site, { variants: [variant('BOX-1', { stock: { quantity: 1 } })] }),
    );
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const id = product.variants[0].id;
    const stock = async (mode: string, quantity: string) => {
      await browser.get(url);
      const key = new RegExp(`action="${url}/variants/${id}/stock"[\\s\\S]*?name="key" value="([^"]+)"`).exec(
        browser.lastPage,
      )![1]!;
      return browser.post(`${url}/variants/${id}/stock`, { csrf: browser.csrf, key, mode, quantity });
    };
    const quantity = async () => (await apiProduct(site, product.id)).product.variants[0].stock;
    assert.equal((await stock('set', '5')).statusCode, 303);
    assert.deepEqual(await quantity(), { quantity: 5, unlimited: false });
    assert.equal((await stock('add', '2')).statusCode, 303);
    assert.deepEqual(await quantity(), { quantity: 7, unlimited: false });
    const tooMany = await stock('remove', '10');
    assert.equal(tooMany.statusCode, 409);
    assert.match(tooMany.body, /role="alert">[^<]*stock/i);
    const notNumber = await stock('add', 'lots');
    assert.equal(notNumber.statusCode, 400);
    assert.match(
      notNumber.body,
      new RegExp(`id="stock-${id}-quantity-error" role="alert">must be an integer`),
    );
    assert.deepEqual(await quantity(), { quantity: 7, unlimited: false });
    assert.equal((await stock('remove', '3')).statusCode, 303);
    assert.deepEqual(await quantity(), { quantity: 4, unlimited: false });
    assert.equal((await stock('unlimited', '')).statusCode, 303);
    assert.deepEqual(await quantity(), { quantity: 0, unlimited: true });
  });

  test('a stock form sent twice adjusts once', async () => {
    const site = await ctx.site();
    const product = await createProduct(
      site,
      physical(site, { variants: [variant('TWICE-1', { stock: { quantity: 1 } })] }),
    );
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const id = product.variants[0].id;
    await browser.get(url);
    const key = new RegExp(`name="key" value="([^"]+)"`).exec(browser.lastPage)![1]!;
    const form = { csrf: browser.csrf, key, mode: 'add', quantity: '2' };
    assert.equal(
      (await browser.post(`${url}/variants/${id}/stock`, form)).headers.location,
      `${url}?saved=stock`,
    );
    assert.equal(
      (await browser.post(`${url}/variants/${id}/stock`, form)).headers.location,
      `${url}?saved=stock-replayed`,
    );
    assert.equal((await apiProduct(site, product.id)).product.variants[0].stock.quantity, 3);
  });
});

describe('images', () => {
  test('several files in one upload, each through the upload service; one refused stops the rest', async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    await browser.get(url);
    const boundary = '----owner-products-test';
    const body = (files: [string, Buffer][]) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${browser.csrf}\r\n`,
        ),
        ...files.flatMap(([name, data]) => [
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
          data,
          Buffer.from('\r\n'),
        ]),
        Buffer.from(`--${boundary}--\r\n`),
      ]);
    const send = (files: [string, Buffer][]) =>
      ctx.app.inject({
        method: 'POST',
        url: `${url}/images`,
        headers: {
          cookie: browser.cookieHeader,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload: body(files),
      });
    const both = await send([
      ['a.png', await png()],
      ['b.png', await png(200, 200)],
    ]);
    assert.equal(both.statusCode, 303, both.body);
    const names = async () =>
      (await apiProduct(site, product.id)).product.images.map((i: { altText: string }) => i.altText);
    assert.deepEqual(await names(), ['a', 'b']);
    const mixed = await send([
      ['c.png', await png()],
      ['notes.txt', Buffer.from('hello')],
      ['d.png', await png()],
    ]);
    assert.equal(mixed.statusCode, 400);
    assert.match(
      mixed.body,
      /role="alert">notes\.txt: not a JPEG, PNG, GIF or WebP image\. 1 file\(s\) before it were uploaded\./,
    );
    assert.deepEqual(await names(), ['a', 'b', 'c']);
  });

  test('upload, alt text, move up and down, delete', async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site));
    const first = await uploadFromPage(ctx, site, product.id, 'first.png');
    const second = await uploadFromPage(ctx, site, product.id, 'second.png');
    await ctx.imageProcessed(first);
    await ctx.imageProcessed(second);
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const page = await browser.get(url);
    assert.match(page.body, /name="altText"\s+value="first"/);
    const csrf = browser.csrf;
    const order = async () =>
      (await apiProduct(site, product.id)).product.images.map((i: { id: string }) => i.id);
    assert.deepEqual(await order(), [first, second]);
    assert.equal(
      (await browser.post(`${url}/images/${second}/move`, { csrf, direction: 'up' })).statusCode,
      303,
    );
    assert.deepEqual(await order(), [second, first]);
    assert.equal(
      (await browser.post(`${url}/images/${second}/move`, { csrf, direction: 'down' })).statusCode,
      303,
    );
    assert.deepEqual(await order(), [first, second]);
    const cannot = await browser.post(`${url}/images/${first}/move`, { csrf, direction: 'up' });
    assert.equal(cannot.statusCode, 400);
    const alt = await browser.post(`${url}/images/${first}`, { csrf, altText: 'A red mug on a table' });
    assert.equal(alt.statusCode, 303);
    const tooLong = await browser.post(`${url}/images/${first}`, { csrf, altText: 'x'.repeat(1001) });
    assert.equal(tooLong.statusCode, 400);
    assert.match(
      tooLong.body,
      new RegExp(`id="image-${first}-altText-error" role="alert">at most 1000 characters`),
    );
    assert.equal((await apiProduct(site, product.id)).product.images[0].altText, 'A red mug on a table');
    assert.equal((await browser.post(`${url}/images/${first}/delete`, { csrf })).statusCode, 303);
    assert.deepEqual(await order(), [second]);
  });

  test('a file that is no image is refused by name; nothing is added', async () => {
    const site = await ctx.site();
    const product = await createProduct(site, physical(site));
    const browser = await ownerOf(ctx, site);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    await browser.get(url);
    const res = await browser.postMultipart(
      `${url}/images`,
      { csrf: browser.csrf },
      { field: 'file', name: 'notes.txt', type: 'text/plain', data: Buffer.from('hello') },
    );
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /role="alert">notes\.txt: not a JPEG, PNG, GIF or WebP image/);
    const empty = await browser.postMultipart(`${url}/images`, { csrf: browser.csrf });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /Choose one or more image files first/);
    assert.deepEqual((await apiProduct(site, product.id)).product.images, []);
  });
});

describe('CSRF', () => {
  test('every form without the token, or with another browser’s, is refused and changes nothing', async () => {
    const site = await ctx.site();
    const product = await createProduct(
      site,
      physical(site, { variants: [variant('SAFE-1', { stock: { quantity: 1 } })] }),
    );
    const browser = await ownerOf(ctx, site);
    const other = await ownerOf(ctx, site);
    await other.get(`/sites/${site.websiteId}/products`);
    const url = `/sites/${site.websiteId}/products/${product.id}`;
    const id = product.variants[0].id;
    for (const csrf of ['', other.csrf]) {
      for (const [path, form] of [
        [
          `/sites/${site.websiteId}/products`,
          { type: 'PHYSICAL', name: 'X', 'v0.sku': 'X', 'v0.price': '1' },
        ],
        [url, { name: 'Hacked' }],
        [`${url}/delete`, {}],
        [`${url}/variants`, { sku: 'NEW-1', price: '1.00' }],
        [`${url}/variants/${id}`, { sku: 'HACKED', price: '1.00' }],
        [`${url}/variants/${id}/stock`, { key: 'k1', mode: 'set', quantity: '99' }],
      ] as const) {
        const res = await browser.post(path, { ...(csrf && { csrf }), ...form });
        assert.equal(res.statusCode, 403, `${path} ${res.body}`);
      }
      const upload = await browser.postMultipart(`${url}/images`, csrf ? { csrf } : {}, {
        field: 'file',
        name: 'a.png',
        type: 'image/png',
        data: await png(),
      });
      assert.equal(upload.statusCode, 403);
    }
    const after = (await apiProduct(site, product.id)).product;
    assert.equal(after.name, 'Mug');
    assert.deepEqual(
      after.variants.map((v: ApiVariant) => [v.sku, v.stock.quantity]),
      [['SAFE-1', 1]],
    );
    assert.deepEqual(after.images, []);
    assert.equal(
      (await site.call({ method: 'GET', url: '/v2/commerce/products' })).json().products.length,
      1,
    );
  });
});
