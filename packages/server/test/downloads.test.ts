import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { downloadStorage, openDownload } from '../src/catalog/digital-goods.ts';
import { ORPHAN_MIN_AGE_MS, sweepOrphanImages } from '../src/catalog/images/image-sweep.ts';
import { listEmails } from '../src/emails/emails.read.ts';
import { DOWNLOAD_LIMIT } from '../src/orders/download-links.ts';
import { refundOrder } from '../src/orders/refund-order.ts';
import { cartKey, decodeCart, encodeCart } from '../src/storefront/cart.ts';
import { contentDisposition } from '../src/storefront/download.routes.ts';
import { createProduct, digital } from './helpers/factories.ts';
import { ownerOf } from './helpers/owner-products.ts';
import { seeOther, Shopper, shirt, text } from './helpers/shopper.ts';
import { storedImageIds, testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { uploadDigitalGood } from '../src/catalog/digital-goods.ts';
import { Readable } from 'node:stream';

/**
 * Downloads (DIGITAL products) sold by the store: the owner's file, the cart's product lines, the
 * checkout's DIGITAL lines, and the signed, expiring, counted links of the confirmation and its
 * e-mail.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(async () => {
  await ctx.close();
});

const GUIDE = Buffer.from('%PDF-1.4\nA guide to glazing.\n%%EOF\n');

/** The product as 1.1 answers it. */
async function product11(id: string) {
  const res = await site.call({ method: 'GET', url: `/1.1/commerce/products/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0];
}

/** Uploads `data` as the product's file from its page, as its owner. */
async function upload(productId: string, name: string, data: Buffer, on: Site = site) {
  const browser = await ownerOf(ctx, on);
  await browser.get(`/sites/${on.websiteId}/products/${productId}`);
  return browser.postMultipart(
    `/sites/${on.websiteId}/products/${productId}/download`,
    { csrf: browser.csrf },
    { field: 'file', name, type: 'application/pdf', data },
  );
}

/** A visible download with its file uploaded. */
async function ebook(on: Site = site, price = '6.00') {
  const made = await createProduct(
    on,
    digital(on, {
      name: 'Glazing guide',
      isVisible: true,
      pricing: { basePrice: { currency: 'USD', value: price } },
    }),
  );
  const id = made.products?.[0]?.id ?? made.id;
  assert.equal((await upload(id, 'glazing-guide.pdf', GUIDE, on)).statusCode, 303);
  return id as string;
}

/** The order a confirmation address names, as the API reads it. */
async function orderOf(confirmation: string) {
  const orderId = /\/checkout\/orders\/([0-9a-f]{24})$/.exec(confirmation)?.[1];
  assert.ok(orderId, confirmation);
  const res = await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Buys one of the download (and anything else added first); returns the confirmation and the order. */
async function buy(productId: string, before?: (shopper: Shopper) => Promise<void>) {
  const shopper = new Shopper(ctx, site.websiteId);
  await before?.(shopper);
  seeOther(await shopper.post(`${shopper.root}/cart`, { productId, quantity: '1' }));
  const confirmation = seeOther(await shopper.checkout());
  const page = await shopper.get(confirmation);
  assert.equal(page.statusCode, 200);
  const order = await orderOf(confirmation);
  const link = /href="([^"]*\/downloads\/[^"]+)"/.exec(page.body)?.[1];
  assert.ok(link, 'the confirmation has a download link');
  return { shopper, page, order, link: new URL(link).pathname };
}

const download = (path: string) => ctx.app.inject({ method: 'GET', url: path });
const counted = async (orderId: string) =>
  (
    await ctx.db.selectFrom('order_downloads').select('downloads').where('order_id', '=', orderId).execute()
  ).reduce((sum, row) => sum + row.downloads, 0);

describe("a download's file", () => {
  test('the owner uploads it from the product page; it shows as digitalGood, a product change; replacing it replaces the file', async () => {
    const made = await createProduct(site, digital(site, { isVisible: true }));
    const id = (made.products?.[0]?.id ?? made.id) as string;
    const before = await product11(id);
    assert.equal(before.digitalGood, null);

    const first = await upload(id, 'guide.pdf', GUIDE);
    assert.equal(first.statusCode, 303, first.body);
    const owner = await ownerOf(ctx, site);
    const shown = await owner.get(first.headers.location as string);
    assert.match(shown.body, /The file was uploaded/);
    assert.match(shown.body, /<strong class="download-file">guide\.pdf<\/strong>/);
    const after1 = await product11(id);
    assert.equal(after1.digitalGood.filename, 'guide.pdf');
    assert.match(after1.digitalGood.id, /^[0-9a-f]{24}$/);
    assert.ok(after1.modifiedOn > before.modifiedOn, 'a product change: a new modifiedOn');
    const v2 = await site.call({ method: 'GET', url: `/v2/commerce/products/${id}` });
    assert.deepEqual(v2.json().products[0].digitalGood, after1.digitalGood);
    const stored = await openDownload(ctx.storage, after1.digitalGood.id);
    assert.equal(stored?.size, GUIDE.length);
    stored?.stream.destroy();

    const second = await upload(id, 'guide v2 (final).pdf', Buffer.from('second'));
    assert.equal(second.statusCode, 303, second.body);
    const after2 = await product11(id);
    assert.notEqual(after2.digitalGood.id, after1.digitalGood.id);
    assert.equal(after2.digitalGood.filename, 'guide v2 (final).pdf');
    assert.equal(await openDownload(ctx.storage, after1.digitalGood.id), undefined, 'the old file is gone');
  });

  test('no file chosen, or a product that is not a download, is refused and changes nothing', async () => {
    const made = await createProduct(site, digital(site));
    const id = (made.products?.[0]?.id ?? made.id) as string;
    const owner = await ownerOf(ctx, site);
    await owner.get(`/sites/${site.websiteId}/products/${id}`);
    const none = await owner.postMultipart(`/sites/${site.websiteId}/products/${id}/download`, {
      csrf: owner.csrf,
    });
    assert.equal(none.statusCode, 400);
    assert.match(text(none), /Choose the file to sell first\./);
    assert.equal((await product11(id)).digitalGood, null);

    const { product } = await shirt(site);
    const physical = await upload(product.id, 'x.pdf', GUIDE);
    assert.equal(physical.statusCode, 400);
    assert.match(text(physical), /Only a download has a file to upload\./);

    const forged = await ownerOf(ctx, site);
    await forged.get(`/sites/${site.websiteId}/products/${id}`);
    const noToken = await forged.postMultipart(
      `/sites/${site.websiteId}/products/${id}/download`,
      { csrf: 'nope' },
      { field: 'file', name: 'a.pdf', type: 'application/pdf', data: GUIDE },
    );
    assert.equal(noToken.statusCode, 403);
    assert.equal((await product11(id)).digitalGood, null);
  });

  test('the image sweep leaves downloads alone, and deleting the product removes its file', async () => {
    const id = await ebook();
    const { digitalGood } = await product11(id);
    const removed = await sweepOrphanImages({
      db: ctx.db,
      pool: ctx.api.pool,
      storage: ctx.storage,
      clock: { now: () => new Date(Date.now() + ORPHAN_MIN_AGE_MS + 60_000) },
    });
    assert.notEqual(removed, undefined);
    const kept = await openDownload(ctx.storage, digitalGood.id);
    assert.ok(kept, 'the sweep kept the download');
    kept.stream.destroy();
    const folders = [];
    for await (const folder of downloadStorage(ctx.storage).imageFolders()) folders.push(folder.imageId);
    assert.ok(folders.includes(digitalGood.id));

    const res = await site.call({ method: 'DELETE', url: `/1.1/commerce/products/${id}` });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(await openDownload(ctx.storage, digitalGood.id), undefined);
  });
});

test('in an S3 bucket too: under downloads/, apart from the images, kept by the sweep, removed with the product', async () => {
  const s3ctx = await testApp({ logLevel: 'silent', storage: 's3' });
  try {
    const s3site = await s3ctx.site();
    const made = await createProduct(s3site, digital(s3site));
    const id = (made.products?.[0]?.id ?? made.id) as string;
    const good = await uploadDigitalGood(s3ctx.api, s3site.websiteId, id, {
      stream: Readable.from([GUIDE]),
      fileName: 'guide.pdf',
    });
    assert.deepEqual(await storedImageIds(s3ctx.storage), [], 'no image folder lists it');
    await sweepOrphanImages({
      db: s3ctx.db,
      pool: s3ctx.api.pool,
      storage: s3ctx.storage,
      clock: { now: () => new Date(Date.now() + ORPHAN_MIN_AGE_MS + 60_000) },
    });
    const file = await openDownload(s3ctx.storage, good.id);
    assert.equal(file?.size, GUIDE.length);
    file?.stream.destroy();
    const res = await s3site.call({ method: 'DELETE', url: `/1.1/commerce/products/${id}` });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(await openDownload(s3ctx.storage, good.id), undefined);
  } finally {
    await s3ctx.close();
  }
});

describe('the cart with product lines', () => {
  const key = cartKey(randomBytes(32));
  const SITE = 'a'.repeat(24);
  const sign = (payload: string) =>
    `${payload}~${createHmac('sha256', key).update(`${SITE}\n${payload}`).digest('base64url')}`;

  test('product lines round-trip under the MAC; an old cookie of variant lines still reads; a tampered one does not', () => {
    const variant = randomUUID();
    const product = 'b'.repeat(24);
    const cart = [
      { variantId: variant, productId: null, quantity: 2 },
      { variantId: null, productId: product, quantity: 1 },
    ];
    const cookie = encodeCart(key, SITE, cart);
    assert.deepEqual(decodeCart(key, SITE, cookie), cart);
    // What carts were before product lines: variant lines alone, in the same format.
    assert.deepEqual(decodeCart(key, SITE, sign(`${variant}*3`)), [
      { variantId: variant, productId: null, quantity: 3 },
    ]);
    assert.deepEqual(decodeCart(key, SITE, cookie.replace(`p${product}`, `p${'c'.repeat(24)}`)), []);
    for (const bad of [
      `p${product}*0`,
      `p${'b'.repeat(23)}*1`,
      `p${product}*1.p${product}*1`,
      `P${product}*1`,
    ]) {
      assert.deepEqual(decodeCart(key, SITE, sign(bad)), [], bad);
    }
  });

  test('a download without its file is not for sale: its page says so and the cart refuses it', async () => {
    const made = await createProduct(
      site,
      digital(site, { name: 'Coming soon', isVisible: true, urlSlug: 'coming-soon' }),
    );
    const id = (made.products?.[0]?.id ?? made.id) as string;
    const shopper = new Shopper(ctx, site.websiteId);
    const page = await shopper.get(new URL((await product11(id)).url).pathname);
    assert.equal(page.statusCode, 200);
    assert.match(text(page), /Not for sale yet/);
    assert.doesNotMatch(page.body, /name="productId"/);
    const res = await shopper.post(`${shopper.root}/cart`, { productId: id, quantity: '1' });
    assert.equal(res.statusCode, 404);
    assert.match(text(res), /not for sale in this store/);
    assert.equal(shopper.cookies.get('emporium_cart'), undefined);
  });
});

describe('checkout of downloads', () => {
  test('a download alone: a DIGITAL line, no shipping, a link on the confirmation and in the sealed e-mail', async () => {
    const id = await ebook();
    const shopper = new Shopper(ctx, site.websiteId);
    const page = await shopper.get(new URL((await product11(id)).url).pathname);
    assert.match(page.body, new RegExp(`name="productId" value="${id}"`));
    seeOther(await shopper.post(`${shopper.root}/cart`, { productId: id, quantity: '1' }));
    const cart = await shopper.get(`${shopper.root}/cart`);
    assert.match(text(cart), /Glazing guide/);
    assert.doesNotMatch(text(cart), /Shipping \$/);
    const form = await shopper.get(`${shopper.root}/checkout`);
    assert.match(text(form), /Subtotal \$6\.00 Total \$6\.00/);
    assert.match(form.body, /<legend>Billing address<\/legend>/);

    const confirmation = seeOther(await shopper.checkout());
    const shown = await shopper.get(confirmation);
    assert.match(text(shown), /Nothing in this order is shipped\./);
    assert.match(text(shown), /Download Glazing guide/);
    const order = await orderOf(confirmation);
    assert.equal(order.lineItems.length, 1);
    const [line] = order.lineItems;
    assert.equal(line.lineItemType, 'DIGITAL');
    assert.equal(line.variantId, null);
    assert.equal(line.sku, null);
    assert.equal(line.variantOptions, null);
    assert.equal(line.productId, id);
    assert.equal(line.productName, 'Glazing guide');
    assert.deepEqual([line.weight, line.width, line.length, line.height], [0, 0, 0, 0]);
    assert.deepEqual(line.unitPricePaid, { currency: 'USD', value: '6.00' });
    assert.deepEqual(order.shippingLines, []);
    assert.equal(order.shippingAddress, null);
    assert.deepEqual(order.grandTotal, { currency: 'USD', value: '6.00' });

    const link = /href="([^"]*\/downloads\/[^"]+)"/.exec(shown.body)![1]!;
    const [email] = await listEmails(ctx.db, site.websiteId, {
      kind: 'order_confirmation',
      orderId: order.id,
    });
    assert.ok(email!.text.includes(link), email!.text);
    assert.ok(email!.html.includes(`href="${link}"`));
    const row = await ctx.db
      .selectFrom('emails')
      .select(['html', 'text', 'sealed'])
      .where('id', '=', email!.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.sealed, 'an e-mail with a download link is kept sealed');
    assert.ok(!row.html.includes('/downloads/') && !row.text.includes('/downloads/'));
  });

  test('a download beside a shirt: shipping is charged once, for the shirt', async () => {
    const id = await ebook();
    const { medium } = await shirt(site, 3);
    const { order } = await buy(id, async (shopper) => {
      seeOther(await shopper.add(medium, 1));
    });
    assert.deepEqual(
      order.lineItems.map((l: { lineItemType: string }) => l.lineItemType),
      ['PHYSICAL_PRODUCT', 'DIGITAL'],
    );
    assert.deepEqual(order.shippingTotal, { currency: 'USD', value: '5.00' });
    assert.deepEqual(order.grandTotal, { currency: 'USD', value: '31.00' });
    assert.equal(order.shippingAddress.postalCode, '97205');
  });
});

describe('download links', () => {
  test('a link streams the file as an attachment, counted, and the owner sees the count', async () => {
    const id = await ebook();
    const { order, link } = await buy(id);
    const res = await download(link);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.rawPayload, GUIDE);
    assert.equal(res.headers['content-length'], String(GUIDE.length));
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename="glazing-guide.pdf"; filename*=UTF-8''glazing-guide.pdf`,
    );
    assert.match(String(res.headers['cache-control']), /no-store/);
    assert.match(String(res.headers['cache-control']), /private/);
    assert.equal(await counted(order.id), 1);
    const head = await ctx.app.inject({ method: 'HEAD', url: link });
    assert.notEqual(head.statusCode, 200);
    assert.equal(await counted(order.id), 1, 'a HEAD request counts nothing');

    const owner = await ownerOf(ctx, site);
    const page = await owner.get(`/sites/${site.websiteId}/orders/${order.id}`);
    assert.match(page.body, /<td class="download-count">1<\/td>/);
  });

  test('a tampered link and another site’s address are 404s, and count nothing', async () => {
    const id = await ebook();
    const { order, link } = await buy(id);
    const sig = link.split('/').at(-1)!;
    const flipped = link.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    for (const bad of [
      flipped,
      link.replace(/\/downloads\/[0-9a-f-]{36}\//, `/downloads/${randomUUID()}/`),
      `${link.slice(0, -sig.length)}short`,
    ]) {
      const res = await download(bad);
      assert.equal(res.statusCode, 404, bad);
      assert.match(text(res), /There is no download at this address/);
    }
    const other = await ctx.site();
    const elsewhere = await download(link.replace(site.websiteId, other.websiteId));
    assert.equal(elsewhere.statusCode, 404);
    assert.equal(await counted(order.id), 0);
  });

  test('a link expires after 24 hours of the site’s clock (410, nothing counted)', async () => {
    const id = await ebook();
    const { order, link } = await buy(id);
    try {
      ctx.api.clock.setShift(site.websiteId, 23 * 3600_000);
      assert.equal((await download(link)).statusCode, 200);
      ctx.api.clock.setShift(site.websiteId, 24 * 3600_000 + 1000);
      const res = await download(link);
      assert.equal(res.statusCode, 410);
      assert.match(text(res), /This download link has expired/);
      assert.equal(await counted(order.id), 1);
    } finally {
      ctx.api.clock.setShift(site.websiteId, 0);
    }
  });

  test(`a link works ${DOWNLOAD_LIMIT} times, then is used up (410)`, async () => {
    const id = await ebook();
    const { order, link } = await buy(id);
    for (let i = 0; i < DOWNLOAD_LIMIT; i++) assert.equal((await download(link)).statusCode, 200);
    const res = await download(link);
    assert.equal(res.statusCode, 410);
    assert.match(text(res), new RegExp(`used ${DOWNLOAD_LIMIT} times`));
    assert.equal(await counted(order.id), DOWNLOAD_LIMIT);
  });

  test('the owner e-mails fresh links; a refunded order’s links stop working', async () => {
    const id = await ebook();
    const { order, link } = await buy(id);
    const owner = await ownerOf(ctx, site);
    await owner.get(`/sites/${site.websiteId}/orders/${order.id}`);
    const sent = await owner.post(`/sites/${site.websiteId}/orders/${order.id}/download-links`, {
      csrf: owner.csrf,
    });
    assert.equal(sent.statusCode, 303, sent.body);
    const emails = await listEmails(ctx.db, site.websiteId, {
      kind: 'order_confirmation',
      orderId: order.id,
    });
    assert.equal(emails.length, 2);
    const fresh = new URL(/href="([^"]*\/downloads\/[^"]+)"/.exec(emails[1]!.html)![1]!).pathname;
    assert.notEqual(fresh, link);
    assert.equal((await download(fresh)).statusCode, 200);
    assert.equal((await download(link)).statusCode, 200, 'the first link still works too');

    await refundOrder(ctx.api, site.websiteId, order.id, {
      full: true,
      restock: false,
      lines: [],
      shipping: false,
      otherMinor: 0,
    });
    for (const path of [link, fresh]) {
      const res = await download(path);
      assert.equal(res.statusCode, 410);
      assert.match(text(res), /refunded or canceled/);
    }
    assert.equal(await counted(order.id), 2);
  });
});

test('Content-Disposition carries any file name safely', () => {
  assert.equal(
    contentDisposition('résumé "v2"; x.pdf'),
    `attachment; filename="r_sum_ _v2_; x.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22%3B%20x.pdf`,
  );
  assert.equal(
    contentDisposition("a'b(c).txt"),
    `attachment; filename="a'b(c).txt"; filename*=UTF-8''a%27b%28c%29.txt`,
  );
});
