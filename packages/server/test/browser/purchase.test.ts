/**
 * A whole purchase in a real browser: Debian's Chromium driven by playwright-core, against the
 * service listening on 127.0.0.1. A shopper goes from a product page through the cart and the
 * checkout (by keyboard) to the confirmation; an app subscribed to order.create hears of the
 * order at a test receiver. Screenshots of the cart, the checkout and the confirmation go to
 * test-output/screenshots, axe-core's findings into the test's output. Without Chromium the
 * tests are skipped with a message saying so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { accessible, browserApp, screenshot, skipWithoutChromium } from '../helpers/chromium.ts';
import { shirt, stockOf } from '../helpers/shopper.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';
import { assertSigned, connectApp, Receiver } from '../helpers/webhooks.ts';

const skip = skipWithoutChromium;

let ctx: TestContext;
let origin: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let receiver: Receiver;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp({ webhookWorkers: 1 }));
  receiver = await new Receiver().start();
});
after(async () => {
  if (skip) return;
  await receiver.stop();
  await close?.();
});

/** axe-core on the page: its findings printed, none serious or critical. */

/** Tabs from the top of the page until the element named `name` has the focus. */
async function tabTo(page: Page, name: string) {
  await page.locator('body').focus();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (focused === name) return;
  }
  assert.fail(`${name} cannot be reached with the Tab key`);
}

/** Types into the focused field, then moves on with Tab, as a keyboard user fills a form. */
async function typeAndTab(page: Page, value: string) {
  if (value) await page.keyboard.type(value);
  await page.keyboard.press('Tab');
}

describe('a purchase in Chromium', { skip }, () => {
  let site: Site;
  let productPath = '';
  let small = '';
  let secret = '';

  before(async () => {
    if (skip) return;
    const app = await connectApp(ctx, ['website.products', 'website.orders']);
    site = app.site;
    const res = await app.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: receiver.url,
      topics: ['order.create'],
    });
    assert.equal(res.statusCode, 201, res.body);
    secret = res.json().secret;
    const discount = await site.call({
      method: 'POST',
      url: '/v1/commerce/discounts',
      payload: {
        name: 'Welcome 10 %',
        criteria: { type: 'ANY_ORDER' },
        template: { type: 'PERCENTAGE', percentage: 10 },
        trigger: { type: 'CODE', promoCode: 'WELCOME10' },
        validFrom: '2025-01-01T00:00:00Z',
      },
    });
    assert.equal(discount.statusCode, 201, discount.body);
    const created = await shirt(site, 3);
    small = created.small;
    productPath = new URL(created.product.url).pathname;
  });

  test('from the product page through the cart and the checkout to the order number', async (t) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${origin}${productPath}`);
    await page.getByLabel('Size').selectOption({ index: 0 });
    await page.getByLabel('Quantity').fill('2');
    await page.getByRole('button', { name: 'Add to cart' }).click();

    await page.waitForURL(`${origin}/s/${site.websiteId}/cart`);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Your cart');
    assert.match((await page.textContent('main')) ?? '', /Subtotal\s*\$30\.00/);
    await screenshot(page, 'store-cart', t);
    await accessible(page, t, 'the cart');

    // Change the quantity by keyboard: type it, then Enter submits the update form.
    await page.getByLabel('Quantity of Linen shirt (S)').fill('1');
    const updated = page.waitForResponse((r) => r.url().endsWith('/cart/lines'));
    await page.keyboard.press('Enter');
    assert.equal((await updated).status(), 303);
    // The same address again: wait for the new page's subtotal, not for the address.
    await page.locator('tfoot').filter({ hasText: '$15.00' }).waitFor();

    await tabTo(page, 'Check out');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/s/${site.websiteId}/checkout`);
    // A promo code first: Enter in its field applies it, and the totals show the saving.
    await page.getByLabel('Promo code').fill('welcome10');
    await page.keyboard.press('Enter');
    await page.locator('#f-promoCode-status').filter({ hasText: 'is applied' }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /Discount: Welcome 10 %\s*−\$1\.50/);
    assert.match((await page.textContent('main')) ?? '', /Total\s*\$18\.50/);
    await accessible(page, t, 'the checkout with a promo code applied');
    await page.getByLabel('E-mail').focus();
    for (const value of [
      'ada@example.com',
      'Ada',
      'Lovelace',
      '12 Analytical Way',
      '',
      'Portland',
      'OR',
      '97205',
    ]) {
      await typeAndTab(page, value);
    }
    await typeAndTab(page, ''); // the country: United States, as chosen
    await typeAndTab(page, ''); // the phone, optional; the gift card's code is above, with the promo code's
    for (const value of ['4000 0000 0000 0002', '12/30', '123']) await typeAndTab(page, value);
    await page.keyboard.press('Enter'); // the focus is on "Place order"

    await page.waitForSelector('#f-cardNumber-error');
    assert.equal(await page.textContent('#f-cardNumber-error'), 'Your card was declined.');
    assert.equal(await page.getByLabel('E-mail').inputValue(), 'ada@example.com', 'the values are kept');
    await screenshot(page, 'store-checkout-declined', t);
    await accessible(page, t, 'the checkout with a declined card');
    assert.equal(await stockOf(site, small), 3, 'a declined card takes nothing');

    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Security code (CVC)').fill('123');
    const notified = receiver.got(1);
    await page.getByRole('button', { name: 'Place order' }).click();

    await page.waitForURL(new RegExp(`/s/${site.websiteId}/checkout/orders/[0-9a-f]{24}$`));
    const orderId = page.url().split('/').pop()!;
    const number = await page.locator('.order-number').textContent();
    const order = (await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` })).json();
    assert.equal(number, String(order.orderNumber));
    assert.equal(order.channel, 'web');
    assert.equal(order.discountLines[0].promoCode, 'WELCOME10');
    assert.equal(order.grandTotal.value, '18.50');
    await screenshot(page, 'store-confirmation', t);
    await accessible(page, t, 'the confirmation');

    const [received] = await notified;
    assert.equal(received!.json.topic, 'order.create');
    assert.deepEqual(received!.json.data, { orderId });
    assertSigned(received!, secret);
    t.diagnostic(`order.create for order ${order.orderNumber} reached the app's receiver`);
    assert.equal(await stockOf(site, small), 2);
    await page.close();
  });

  test('a service: no shipping in the totals, a billing address, and nothing shipped on the confirmation', async (t) => {
    const created = await site.call({
      method: 'POST',
      url: '/v2/commerce/products',
      payload: {
        type: 'SERVICE',
        storePageId: site.storePageId,
        name: 'Hemming',
        isVisible: true,
        variants: [
          {
            sku: 'HEM-1',
            pricing: { basePrice: { currency: 'USD', value: '12.00' } },
            stock: { quantity: 4 },
          },
        ],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const service = created.json();
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${origin}${new URL(service.url).pathname}`);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.waitForURL(`${origin}/s/${site.websiteId}/cart`);
    await tabTo(page, 'Check out');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/s/${site.websiteId}/checkout`);
    const main = (await page.textContent('main')) ?? '';
    assert.match(main, /Subtotal\s*\$12\.00\s*Total\s*\$12\.00/);
    assert.doesNotMatch(main, /Shipping\s*\$/);
    assert.equal(await page.locator('legend', { hasText: 'Billing address' }).count(), 1);
    await screenshot(page, 'store-checkout-service', t);
    await accessible(page, t, 'the checkout of a service');
    const fields: [string, string][] = [
      ['E-mail', 'grace@example.com'],
      ['First name', 'Grace'],
      ['Last name', 'Hopper'],
      ['Street address', '1 Compiler Lane'],
      ['Town or city', 'Arlington'],
      ['Postal code', '22201'],
      ['Card number', '4242 4242 4242 4242'],
      ['Expiry date (MM/YY)', '12/30'],
      ['Security code (CVC)', '123'],
    ];
    for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.waitForURL(new RegExp(`/s/${site.websiteId}/checkout/orders/[0-9a-f]{24}$`));
    assert.match((await page.textContent('main')) ?? '', /Nothing in this order is shipped\./);
    await accessible(page, t, 'the confirmation of a service');
    const orderId = page.url().split('/').pop()!;
    const order = (await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` })).json();
    assert.equal(order.lineItems[0].lineItemType, 'SERVICE');
    assert.equal(order.shippingAddress, null);
    assert.equal(order.grandTotal.value, '12.00');
    assert.equal(await stockOf(site, service.variants[0].id), 3);
    await page.close();
  });
});
