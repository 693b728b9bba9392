/**
 * Gift cards in Chromium, against the service on 127.0.0.1: a shopper buys a gift card from its
 * product page (its amount chosen), reads the code on the confirmation, then applies it at the
 * checkout of three shirts (a wrong code first), sees what it pays and what is left for the card,
 * and pays the rest by card; the owner opens the gift cards page, the order's payments, the
 * card's history, and disables it.
 * axe-core finds no serious or critical violation on each page, and the owner's pages are no
 * wider than a phone's 390 px window. Skipped without Chromium, like the other browser tests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  accessible,
  browserApp,
  type Diagnostics,
  fitsPhone,
  screenshot,
  skipWithoutChromium,
} from '../helpers/chromium.ts';
import { CODE, giftCardProduct } from '../helpers/gift-cards.ts';
import { ownerEmailOf } from '../helpers/owner-pages.ts';
import { shirt } from '../helpers/shopper.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';

const skip = skipWithoutChromium;

let ctx: TestContext;
let origin: string;
let site: Site;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp());
  site = await ctx.site();
});
after(async () => {
  if (skip) return;
  await close?.();
});

/** axe-core on the page; with `phone`, then no wider than a 390 px window too. */
async function checked(page: Page, t: Diagnostics, label: string, phone = false) {
  await accessible(page, t, label);
  const name = `gift-cards-${label.replaceAll(' ', '-')}`;
  await screenshot(page, name, t);
  if (phone) await fitsPhone(page, t, label, `${name}-390`);
}

const ADDRESS: [string, string][] = [
  ['E-mail', 'ada@example.com'],
  ['First name', 'Ada'],
  ['Last name', 'Lovelace'],
  ['Street address', '12 Analytical Way'],
  ['Town or city', 'Portland'],
  ['Postal code', '97205'],
];

async function fillIn(page: Page, fields: [string, string][]) {
  // Exact labels (Card number is not Card number's error); an optional field's says "(optional)".
  for (const [label, value] of [...ADDRESS, ...fields]) {
    await page.getByLabel(label, { exact: !label.startsWith('Gift card') }).fill(value);
  }
}

async function placeOrder(page: Page, fields: [string, string][]) {
  await fillIn(page, fields);
  await page.getByRole('button', { name: 'Place order' }).click();
  await page.waitForURL(new RegExp(`/s/${site.websiteId}/checkout/orders/[0-9a-f]{24}$`));
}

test(
  'buy a gift card of 50.00, apply it to three shirts and pay the rest by card, then the owner sees the payments and disables the card; axe passes on each page',
  { skip, timeout: 120_000 },
  async (t) => {
    const { productId } = await giftCardProduct(site);
    const product = (await site.call({ method: 'GET', url: `/v2/commerce/products/${productId}` })).json();
    const productUrl = new URL((product.products?.[0] ?? product).url).pathname;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(10_000);

    await page.goto(`${origin}${productUrl}`);
    await checked(page, t, 'the gift card page');
    await page.getByLabel('Amount').selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.waitForURL(`${origin}/s/${site.websiteId}/cart`);
    await page.goto(`${origin}/s/${site.websiteId}/checkout`);
    const checkout = (await page.textContent('main')) ?? '';
    assert.match(checkout, /Total\s*\$50\.00/);
    assert.doesNotMatch(checkout, /Shipping\s*\$/);
    await checked(page, t, 'the checkout of a gift card');
    await placeOrder(page, [
      ['Card number', '4242 4242 4242 4242'],
      ['Expiry date (MM/YY)', '12/30'],
      ['Security code (CVC)', '123'],
    ]);
    const code = ((await page.locator('.gift-card-code').textContent()) ?? '').trim();
    assert.match(code, new RegExp(`^${CODE.source.replace(/\\b/g, '')}$`));
    assert.match((await page.textContent('main')) ?? '', /\$50\.00/);
    await checked(page, t, 'the confirmation with the code');

    // Three shirts: 60.00 and 5.00 shipping, more than the card's 50.00.
    const { product: shirtProduct } = await shirt(site, 3);
    await page.goto(`${origin}${new URL(shirtProduct.url).pathname}`);
    await page.getByLabel('Size').selectOption({ index: 1 });
    await page.getByLabel('Quantity').fill('3');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.waitForURL(`${origin}/s/${site.websiteId}/cart`);
    await page.goto(`${origin}/s/${site.websiteId}/checkout`);
    // A wrong code first, applied: the message beside the field, nothing carried to the order.
    await page.getByLabel('Gift card code').fill('ZZZZ-ZZZZ-ZZZZ-ZZZZ');
    await page.getByRole('button', { name: 'Apply gift card' }).click();
    await page.locator('#f-giftCardCode-error').waitFor();
    assert.equal(
      await page.textContent('#f-giftCardCode-error'),
      'No gift card has this code. Check the code and try again.',
    );
    assert.equal(await page.getByLabel('Gift card code').getAttribute('aria-invalid'), 'true');
    await checked(page, t, 'the checkout with an unknown gift card');
    // The right one, by keyboard: Enter in the field applies it, and the page shows the split.
    await page.getByLabel('Gift card code').fill(code.toLowerCase());
    await page.getByLabel('Gift card code').press('Enter');
    await page.locator('#f-giftCardCode-status').waitFor();
    const last = code.slice(-4);
    assert.equal(
      await page.textContent('#f-giftCardCode-status'),
      `Gift card ····${last} (balance $50.00) pays $50.00; card pays $15.00.`,
    );
    assert.equal(
      await page.getByLabel('Gift card code').getAttribute('aria-describedby'),
      'f-giftCardCode-status',
    );
    assert.match((await page.textContent('#gift-card-note')) ?? '', /the card pays the other \$15\.00/);
    // The code is the fields' value only: in no text of the page and not in its address.
    assert.ok(!((await page.textContent('body')) ?? '').toUpperCase().includes(code));
    assert.ok(!page.url().toUpperCase().includes(code.replace(/-/g, '')));
    await checked(page, t, 'the checkout with a gift card applied');
    await placeOrder(page, [
      ['Card number', '4242 4242 4242 4242'],
      ['Expiry date (MM/YY)', '12/30'],
      ['Security code (CVC)', '123'],
    ]);
    const orderId = page.url().split('/').pop()!;
    const order = (await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` })).json();
    assert.equal(order.grandTotal.value, '65.00');
    assert.match(
      (await page.textContent('main')) ?? '',
      new RegExp(`Gift card ····${last} paid \\$50\\.00, the card \\$15\\.00\\.`),
    );
    await checked(page, t, 'the confirmation paid by gift card');

    // The owner's pages.
    const email = await ownerEmailOf(ctx, site);
    await page.goto(`${origin}/sites/${site.websiteId}/gift-cards`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/sites/${site.websiteId}/gift-cards`);
    const list = (await page.textContent('main')) ?? '';
    assert.match(list, new RegExp(`····${code.slice(-4)}\\s*50\\.00 USD\\s*0\\.00 USD\\s*Active`));
    assert.ok(!list.includes(code), 'the owner sees the last four only');
    await checked(page, t, 'the gift cards list', true);

    // The order's page lists its two payments; the gift card's links to the card's page.
    await page.goto(`${origin}/sites/${site.websiteId}/orders/${orderId}`);
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    const payments = (await page.getByRole('region', { name: 'Payments' }).textContent()) ?? '';
    assert.match(
      payments,
      new RegExp(
        `Gift card ····${last}\\s*50\\.00 USD\\s*0\\.00 USD\\s*Card \\(Visa\\)\\s*15\\.00 USD\\s*0\\.00 USD`,
      ),
    );
    await checked(page, t, 'the order paid by gift card and card', true);
    await page.getByRole('link', { name: `Gift card ····${last}` }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await checked(page, t, 'the gift card with its history', true);
    await page.getByRole('button', { name: `Disable gift card ····${code.slice(-4)}` }).click();
    await page.getByText('Gift card disabled.').waitFor();
    assert.match((await page.textContent('main')) ?? '', /Disabled\s*0\.00 USD\s*0\.00 USD/);
    await checked(page, t, 'the disabled gift card', true);
    await page.close();
  },
);
