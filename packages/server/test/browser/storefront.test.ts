/**
 * The public store in Chromium, against the service on 127.0.0.1: a store page and a product
 * page (screenshots in test-output/), the product page used from the keyboard up to "Add to
 * cart", and axe-core on each page (every violation printed; none serious or critical), the
 * product's description holding a merchant's picture without alt text. Pages
 * keep their strict Content-Security-Policy: nothing they load may be refused by it. Skipped
 * without Chromium, like the other browser tests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { axeViolations } from '../helpers/axe.ts';
import { browserApp, screenshot, skipWithoutChromium } from '../helpers/chromium.ts';
import { createProduct, money, multipartFile, physical, variant } from '../helpers/factories.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';

const skip = skipWithoutChromium;

let ctx: TestContext;
let origin: string;
let site: Site;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let shirtUrl: string;

/** A product with a picture of one colour, uploaded and processed as an app would. */
async function product(body: Record<string, unknown>, colour: string, altText: string) {
  const created = await createProduct(site, physical(site, { isVisible: true, ...body }));
  const bytes = await sharp({ create: { width: 1200, height: 1200, channels: 3, background: colour } })
    .png()
    .toBuffer();
  const url = `/1.1/commerce/products/${created.id}/images`;
  const upload = await site.call({ method: 'POST', url, ...multipartFile('file', 'photo.png', bytes) });
  assert.equal(upload.statusCode, 202, upload.body);
  const { imageId } = upload.json();
  await ctx.imageProcessed(imageId);
  const alt = await site.call({ method: 'POST', url: `${url}/${imageId}`, payload: { altText } });
  assert.equal(alt.statusCode, 200, alt.body);
  return created;
}

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp({ imageWorkers: 1 }));
  site = await ctx.site();
  const mug = await product(
    {
      name: 'Stoneware Mug',
      variants: [variant('MUG', { stock: { quantity: 0 }, pricing: { basePrice: money('18.00') } })],
    },
    '#4a6fa5',
    'A blue stoneware mug',
  );
  await product(
    {
      name: 'Canvas Tote',
      variants: [
        variant('TOTE', {
          stock: { quantity: 3 },
          pricing: { basePrice: money('30.00'), salePrice: money('24.00'), onSale: true },
        }),
      ],
    },
    '#c9a66b',
    'A sand-coloured canvas tote bag',
  );
  // A merchant's description with a picture and no alt text: the store must not show it so.
  const mugImage = (await site.call({ method: 'GET', url: `/1.1/commerce/products/${mug.id}` })).json()
    .products[0].images[0];
  const shirt = await product(
    {
      name: 'Linen Shirt',
      description:
        '<p>Breathable <strong>linen</strong>, cut loose for summer.</p>' +
        `<p><img src="${origin}${new URL(mugImage.url).pathname}" width="96" height="96"> Pairs with our mug.</p>`,
      seoOptions: { title: 'Linen Shirt for Summer', description: 'A loose linen shirt.' },
      variantAttributes: ['Size'],
      variants: ['S', 'M', 'L'].map((size, i) =>
        variant(`SHIRT-${size}`, {
          attributes: { Size: size },
          stock: { quantity: [0, 2, 40][i] },
          pricing: { basePrice: money('39.00') },
        }),
      ),
    },
    '#e8e2d0',
    'A cream linen shirt on a hanger',
  );
  shirtUrl = new URL(shirt.url).pathname;
});
after(async () => {
  if (skip) return;
  await close?.();
});

/** A page that records what its Content-Security-Policy refused. */
async function storePage(refused: string[]): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  return page;
}

test(
  'the store page: products with pictures, prices, a sale and "Sold out"; no axe violations',
  { skip, timeout: 90_000 },
  async (t) => {
    const refused: string[] = [];
    const page = await storePage(refused);
    await page.goto(`${origin}/s/${site.websiteId}`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Test Store');
    assert.deepEqual(await axeViolations(page, t, 'the store front'), []);
    await page.getByRole('link', { name: 'Shop' }).click();
    await page.waitForURL(`${origin}/s/${site.websiteId}/shop`);
    const names = await page.getByRole('heading', { level: 2 }).allTextContents();
    assert.deepEqual(names, ['Linen Shirt', 'Canvas Tote', 'Stoneware Mug']);
    const mug = page.getByRole('listitem').filter({ hasText: 'Stoneware Mug' });
    assert.match((await mug.textContent()) ?? '', /Sold out/);
    const tote = page.getByRole('listitem').filter({ hasText: 'Canvas Tote' });
    assert.match((await tote.textContent()) ?? '', /Sale price \$24\.00\s*was \$30\.00/);
    // Every picture loads, from this origin, under the page's policy. They load lazily, as a
    // shopper scrolls, so the test scrolls to each and waits for it rather than for `load`.
    for (const image of await page.locator('img').all()) {
      await image.scrollIntoViewIfNeeded();
      await image.evaluate((i: HTMLImageElement) =>
        i.complete ? undefined : i.decode().catch(() => undefined),
      );
    }
    const loaded = await page.$$eval('img', (images) => images.map((i) => i.complete && i.naturalWidth > 0));
    assert.deepEqual(loaded, [true, true, true]);
    await screenshot(page, 'store-page', t);
    assert.deepEqual(await axeViolations(page, t, 'the store page'), []);
    assert.deepEqual(refused, []);
    await page.close();
  },
);

test(
  'the product page: from the keyboard to "Add to cart"; no axe violations',
  { skip, timeout: 90_000 },
  async (t) => {
    const refused: string[] = [];
    const page = await storePage(refused);
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.goto(`${origin}${shirtUrl}`);
    assert.equal(await page.title(), 'Linen Shirt for Summer');
    await page.waitForLoadState('load');
    const image = page.getByRole('img', { name: 'A cream linen shirt on a hanger' });
    // The browser chose a file from the srcset, not the original upload.
    assert.match((await image.evaluate((i: HTMLImageElement) => i.currentSrc)) ?? '', /\?format=\d+w$/);
    // The first Tab reaches the skip link; Tab goes on to the size, the quantity and the button.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    const select = page.getByLabel('Size');
    assert.equal(
      await select.inputValue(),
      await select.locator('option', { hasText: 'M ·' }).getAttribute('value'),
    );
    const focused: string[] = [];
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el
          ? `${el.tagName.toLowerCase()}:${(el.getAttribute('name') ?? el.textContent ?? '').trim()}`
          : '';
      });
      focused.push(label);
      if (label === 'button:Add to cart') break;
    }
    assert.equal(focused.at(-1), 'button:Add to cart', focused.join(' > '));
    assert.ok(
      focused.includes('select:variantId') && focused.includes('input:quantity'),
      focused.join(' > '),
    );
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.equal(outline, 'solid', 'the focused button shows its focus');
    await screenshot(page, 'product-page', t);
    assert.deepEqual(await axeViolations(page, t, 'the product page'), []);
    const described = await page
      .locator('.description img')
      .evaluateAll((images: HTMLImageElement[]) =>
        images.map((i) => [i.getAttribute('alt'), i.complete && i.naturalWidth > 0]),
      );
    assert.deepEqual(described, [['', true]], "the description's picture, loaded, with an empty alt");
    assert.deepEqual(refused, []);
    await page.close();
  },
);
