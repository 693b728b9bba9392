/**
 * Buying a download in a real browser (Debian's Chromium through playwright-core): the product
 * page, the cart, the checkout without shipping and the confirmation with its link, axe-core clean
 * on each, then the link downloads the file and, once expired, says so on a page as clean.
 * Without Chromium the test is skipped with a message saying so.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { accessible, browserApp, SCREENSHOTS, skipWithoutChromium } from '../helpers/chromium.ts';
import { createProduct, digital } from '../helpers/factories.ts';
import { ownerOf } from '../helpers/owner-products.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';

const skip = skipWithoutChromium;

let ctx: TestContext;
let origin: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp());
});
after(async () => {
  if (skip) return;
  await close?.();
});

/** axe-core on the page: its findings printed, none serious or critical. */

const GUIDE = Buffer.from('%PDF-1.4\nA guide to glazing, for the browser test.\n%%EOF\n');

describe('buying a download in Chromium', { skip }, () => {
  let site: Site;
  let productPath = '';

  before(async () => {
    if (skip) return;
    site = await ctx.site();
    const product = await createProduct(
      site,
      digital(site, {
        name: 'Glazing guide',
        isVisible: true,
        pricing: { basePrice: { currency: 'USD', value: '6.00' } },
      }),
    );
    const owner = await ownerOf(ctx, site);
    await owner.get(`/sites/${site.websiteId}/products/${product.id}`);
    const uploaded = await owner.postMultipart(
      `/sites/${site.websiteId}/products/${product.id}/download`,
      { csrf: owner.csrf },
      { field: 'file', name: 'glazing guide.pdf', type: 'application/pdf', data: GUIDE },
    );
    assert.equal(uploaded.statusCode, 303, uploaded.body);
    productPath = new URL(product.url).pathname;
  });

  test('product page, cart, checkout and confirmation, then the link downloads the file until it expires', async (t) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${origin}${productPath}`);
    assert.match((await page.textContent('main')) ?? '', /after payment, a link to the file/);
    await accessible(page, t, "a download's page");
    await page.getByRole('button', { name: 'Add to cart' }).click();

    await page.waitForURL(`${origin}/s/${site.websiteId}/cart`);
    assert.match((await page.textContent('main')) ?? '', /Glazing guide/);
    await accessible(page, t, 'the cart with a download');
    await page.getByRole('link', { name: 'Check out' }).click();

    await page.waitForURL(`${origin}/s/${site.websiteId}/checkout`);
    const checkout = (await page.textContent('main')) ?? '';
    assert.match(checkout, /Subtotal\s*\$6\.00\s*Total\s*\$6\.00/);
    assert.doesNotMatch(checkout, /Shipping\s*\$/);
    assert.equal(await page.locator('legend', { hasText: 'Billing address' }).count(), 1);
    await accessible(page, t, 'the checkout of a download');
    const fields: [string, string][] = [
      ['E-mail', 'dorothy@example.com'],
      ['First name', 'Dorothy'],
      ['Last name', 'Hodgkin'],
      ['Street address', '3 Crystal Close'],
      ['Town or city', 'Oxford'],
      ['Postal code', '22201'],
      ['Card number', '4242 4242 4242 4242'],
      ['Expiry date (MM/YY)', '12/30'],
      ['Security code (CVC)', '123'],
    ];
    for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByRole('button', { name: 'Place order' }).click();

    await page.waitForURL(new RegExp(`/s/${site.websiteId}/checkout/orders/[0-9a-f]{24}$`));
    const link = page.getByRole('link', { name: 'Download Glazing guide' });
    assert.equal(await link.count(), 1);
    await page.screenshot({
      path: path.join(SCREENSHOTS, 'store-confirmation-download.png'),
      fullPage: true,
    });
    await accessible(page, t, 'the confirmation of a download');
    const href = (await link.getAttribute('href'))!;

    const download = await page.request.get(`${origin}${new URL(href).pathname}`);
    assert.equal(download.status(), 200);
    assert.deepEqual(await download.body(), GUIDE);
    assert.match(download.headers()['content-disposition']!, /^attachment; filename="glazing guide\.pdf"/);

    ctx.api.clock.setShift(site.websiteId, 25 * 3600_000);
    try {
      const expired = await page.goto(`${origin}${new URL(href).pathname}`);
      assert.equal(expired?.status(), 410);
      assert.match((await page.textContent('main')) ?? '', /This download link has expired/);
      await accessible(page, t, 'an expired download link');
    } finally {
      ctx.api.clock.setShift(site.websiteId, 0);
    }
    await page.close();
  });
});
