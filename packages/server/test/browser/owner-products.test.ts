/**
 * The owner's product pages in Chromium, against the service on 127.0.0.1: the grid (with its
 * screenshot), a product opened and edited from the keyboard, which an app subscribed to
 * product.update hears of, an image uploaded with the page's script showing the progress, then
 * shown on the variant, whose measurements and GTIN are set (one refused first); axe-core on
 * each page. Skipped without Chromium, like the other browser tests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { axeViolations } from '../helpers/axe.ts';
import { browserApp, screenshot, skipWithoutChromium } from '../helpers/chromium.ts';
import { createProduct, money, physical, variant } from '../helpers/factories.ts';
import { apiProduct } from '../helpers/owner-products.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';
import { connectApp, Receiver } from '../helpers/webhooks.ts';
import { ownerEmailOf } from '../helpers/owner-pages.ts';

const skip = skipWithoutChromium;

let ctx: TestContext;
let origin: string;
let site: Site;
let email: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let productId: string;
/** A subscribed app's endpoint for product.update. */
let receiver: Receiver;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp({ imageWorkers: 1, webhookWorkers: 1 }));
  // The site has an app connected that subscribed to product.update, as an app developer's would.
  const connected = await connectApp(ctx, ['website.products']);
  site = connected.site;
  receiver = await new Receiver().start();
  const subscribed = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: receiver.url,
    topics: ['product.update'],
  });
  assert.equal(subscribed.statusCode, 201, subscribed.body);
  email = await ownerEmailOf(ctx, site);
  const shirt = await createProduct(
    site,
    physical(site, {
      name: 'Linen Shirt',
      isVisible: true,
      variants: [variant('SHIRT-S', { stock: { quantity: 5 }, pricing: { basePrice: money('39.00') } })],
    }),
  );
  productId = shirt.id;
  await createProduct(site, physical(site, { name: 'Blue Mug', variants: [variant('MUG-1')] }));
});
after(async () => {
  if (skip) return;
  await receiver?.stop();
  await close?.();
});

/** Presses Tab until the focused element's text is `name`; fails after `limit` presses. */
async function tabTo(page: Page, name: string, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.textContent?.trim())) === name) return;
  }
  assert.fail(`no focusable "${name}" within ${limit} presses of Tab`);
}

test(
  'the grid, a product edited from the keyboard, an image uploaded with its progress shown',
  { skip, timeout: 90_000 },
  async (t) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const scriptErrors: string[] = [];
    page.on('pageerror', (error) => scriptErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 404/.test(message.text()))
        scriptErrors.push(message.text());
    });
    // The browser asks for /favicon.ico by itself; any other missing file is a fault of the page.
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) {
        scriptErrors.push(`${response.status()} ${response.url()}`);
      }
    });

    await page.goto(`${origin}/sites/${site.websiteId}/products`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Products of Test Store' }).waitFor();
    await page.getByRole('link', { name: 'Linen Shirt' }).waitFor();
    assert.ok(await page.getByText('Stock: 5 in stock').isVisible());

    // Search from the keyboard: type in the field and press Enter.
    await page.getByLabel('Name or SKU').fill('mug');
    await page.keyboard.press('Enter');
    await page.waitForURL(/query=mug/);
    assert.equal(await page.getByRole('link', { name: 'Linen Shirt' }).count(), 0);
    await page.getByRole('link', { name: 'Blue Mug' }).waitFor();

    await page.goto(`${origin}/sites/${site.websiteId}/products`);
    await screenshot(page, 'owner-product-grid', t);
    assert.deepEqual(await axeViolations(page, t, 'the product grid'), []);

    // Open the product and change its name with the keyboard only.
    await tabTo(page, 'Linen Shirt');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Linen Shirt' }).waitFor();
    await page.getByLabel('Name', { exact: true }).focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Linen Shirt, washed');
    await page.keyboard.press('Enter');
    await page.getByText('The details were saved.').waitFor();
    assert.equal((await apiProduct(site, productId)).product.name, 'Linen Shirt, washed');
    // The edit went through the API's service: the subscribed app hears of it.
    const [notification] = await receiver.got(1);
    assert.equal(notification!.json.topic, 'product.update');
    assert.deepEqual(notification!.json.data, { productId });

    // The upload: the script sends the form and says how far it got; the status line is kept
    // in sessionStorage, as the page is left for the product page once the upload is done.
    await page.evaluate(() => {
      const status = document.getElementById('upload-status')!;
      new MutationObserver(() => {
        const seen = JSON.parse(sessionStorage.getItem('seen') ?? '[]');
        seen.push(status.textContent);
        sessionStorage.setItem('seen', JSON.stringify(seen));
      }).observe(status, { childList: true, characterData: true, subtree: true });
    });
    const image = await sharp({
      create: { width: 800, height: 600, channels: 3, background: { r: 30, g: 90, b: 160 } },
    })
      .png()
      .toBuffer();
    await page
      .getByLabel('Image files')
      .setInputFiles({ name: 'shirt-front.png', mimeType: 'image/png', buffer: image });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.waitForURL(/\?saved=images$/);
    await page.getByText('The images were uploaded').waitFor();
    const seen: string[] = await page.evaluate(() => JSON.parse(sessionStorage.getItem('seen') ?? '[]'));
    t.diagnostic(`upload status lines: ${JSON.stringify(seen)}`);
    assert.ok(
      seen.some((line) => /^Uploading: \d+%$/.test(line)),
      `progress shown: ${JSON.stringify(seen)}`,
    );
    assert.ok(seen.includes('Uploaded.'));

    const { product } = await apiProduct(site, productId);
    assert.equal(product.images.length, 1);
    await ctx.imageProcessed(product.images[0].id);
    await page.reload();
    const thumb = page.getByRole('img', { name: 'shirt-front' });
    await thumb.waitFor();
    assert.ok(await thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    await screenshot(page, 'owner-product-page', t);
    assert.deepEqual(await axeViolations(page, t, 'the product page'), []);

    assert.deepEqual(scriptErrors, [], 'no script errors, no CSP refusals');

    // The variant shows the uploaded image, chosen by its name among the product's.
    await page.getByRole('form', { name: 'Image of SHIRT-S' }).getByLabel('Image shown').selectOption({
      label: 'Image 1: shirt-front',
    });
    await page.getByRole('button', { name: 'Save image' }).click();
    await page.getByText("The variant's image was saved.").waitFor();
    assert.equal((await apiProduct(site, productId)).product.variants[0].image.id, product.images[0].id);

    // A variant's measurements in the site's units, and a GTIN refused beside its field.
    const variantForm = page.getByRole('form', { name: 'Variant SHIRT-S' });
    await variantForm.getByLabel('Weight (lb)').fill('0.6');
    await variantForm.getByLabel('GTIN').fill('12345');
    await variantForm.getByRole('button', { name: 'Save variant' }).click();
    await page.getByText('a GTIN has 8, 12, 13 or 14 digits').waitFor();
    // The page is the refused one now; the locators find its form again.
    const gtin = variantForm.getByLabel('GTIN');
    assert.equal(await gtin.getAttribute('aria-invalid'), 'true');
    assert.equal(await gtin.inputValue(), '12345');
    assert.equal(await variantForm.getByLabel('Weight (lb)').inputValue(), '0.6');
    assert.deepEqual(await axeViolations(page, t, 'the product page with a variant refused'), []);
    await gtin.fill('96385074');
    await variantForm.getByRole('button', { name: 'Save variant' }).click();
    await page.getByText('The variant was saved.').waitFor();
    const saved = (await apiProduct(site, productId)).product.variants[0];
    assert.equal(saved.gtin, '96385074');
    assert.deepEqual(saved.shippingMeasurements.weight, { unit: 'POUND', value: 0.6 });

    // The new-product form, refused (a 400 page): the message beside its field is read with it.
    await page.goto(`${origin}/sites/${site.websiteId}/products/new`);
    await page.getByLabel('Name', { exact: true }).fill('Cap');
    await page.getByLabel('SKU').fill('CAP-1');
    await page.getByLabel('Price', { exact: true }).fill('twelve');
    await page.getByRole('button', { name: 'Create product' }).click();
    const price = page.getByLabel('Price', { exact: true });
    await page.getByText('must be a decimal string').waitFor();
    assert.equal(await price.getAttribute('aria-invalid'), 'true');
    assert.equal(await price.inputValue(), 'twelve');
    await screenshot(page, 'owner-product-new-refused', t);
    assert.deepEqual(await axeViolations(page, t, 'the new-product form with an error'), []);
    await page.close();
  },
);
