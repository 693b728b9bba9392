/**
 * The owner's order pages and dashboard in Chromium, against the service on 127.0.0.1: the owner
 * signs in, finds an order from the dashboard, fulfills it with a shipment through the form (a
 * subscribed app receives order.update FULFILLED), cancels another, and every page passes axe-core
 * with no serious or critical violation. Screenshots of the dashboard and an order. Skipped
 * without Chromium, like the other browser tests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createOrder } from '../../src/orders/orders.service.ts';
import { accessible, browserApp, screenshot, skipWithoutChromium } from '../helpers/chromium.ts';
import { createProduct, money, physical, variant } from '../helpers/factories.ts';
import { nativeDraft, ORDERS } from '../helpers/orders.ts';
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
let receiver: Receiver;
let variantId: string;
const DAY = 86_400_000;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp({ webhookWorkers: 1 }));
  receiver = await new Receiver().start();
  const connected = await connectApp(ctx, ['website.orders']);
  site = connected.site;
  const subscribed = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: receiver.url,
    topics: ['order.update'],
  });
  assert.equal(subscribed.statusCode, 201, subscribed.body);
  email = await ownerEmailOf(ctx, site);
  const mug = await createProduct(
    site,
    physical(site, {
      name: 'Stoneware Mug',
      isVisible: true,
      variantAttributes: ['Glaze'],
      variants: [
        variant('MUG-SAND', {
          attributes: { Glaze: 'Sand' },
          pricing: { basePrice: money('18.00') },
          stock: { quantity: 20, unlimited: false },
        }),
      ],
    }),
  );
  variantId = mug.variants[0].id;
});
after(async () => {
  if (skip) return;
  await receiver?.stop();
  await close?.();
});

/** A storefront-like order of `quantity` mugs, placed `daysAgo` days before now, to Ada. */
async function order(quantity: number, daysAgo: number) {
  const total = quantity * 1800 + 500;
  const address = {
    firstName: 'Ada',
    lastName: 'Lovelace',
    address1: '12 Analytical Way',
    address2: null,
    city: 'Portland',
    state: 'OR',
    countryCode: 'US',
    postalCode: '97205',
    phone: null,
  };
  const draft = nativeDraft(new Date(ctx.clock.now().getTime() - daysAgo * DAY), {
    customerEmail: 'ada@example.com',
    billingAddress: address,
    shippingAddress: address,
    lines: [
      {
        lineItemType: 'PHYSICAL_PRODUCT',
        variantId,
        title: null,
        quantity,
        unitPricePaidMinor: 1800,
        customizations: null,
      },
    ],
    shippingLines: [{ method: 'Standard shipping', amountMinor: 500 }],
    subtotalMinor: quantity * 1800,
    shippingTotalMinor: 500,
    grandTotalMinor: total,
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

test(
  'dashboard, an order fulfilled with a shipment through its form (order.update delivered), another canceled',
  { skip, timeout: 90_000 },
  async (t) => {
    const days = [0, 1, 3, 3, 8, 15, 22, 29];
    const placed = [];
    for (const [i, daysAgo] of days.entries()) placed.push(await order((i % 3) + 1, daysAgo));
    const [toShip, toCancel] = placed.slice(-2).reverse();
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);

    await page.goto(`${origin}/sites/${site.websiteId}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/sites/${site.websiteId}`);
    const chart = page.getByRole('img', { name: 'Revenue of the last 30 days' });
    await chart.waitFor();
    assert.ok((await chart.locator('rect').count()) === 30, 'a bar for each of the 30 days');
    await page.getByText('8 orders awaiting fulfillment').waitFor();
    await screenshot(page, 'owner-dashboard', t);
    await accessible(page, t, 'the dashboard');

    await page.getByRole('link', { name: '8 orders awaiting fulfillment' }).click();
    await page.waitForURL(/\/orders\?status=PENDING$/);
    await page.getByLabel('Order number or e-mail').fill(`#${toShip!.orderNumber}`);
    await page.getByRole('button', { name: 'Find orders' }).click();
    await page.getByRole('link', { name: `#${toShip!.orderNumber}` }).waitFor();
    await screenshot(page, 'owner-orders-list', t);
    await accessible(page, t, 'the order list');
    await page.getByRole('link', { name: `#${toShip!.orderNumber}` }).click();
    await page.getByRole('heading', { name: `Order #${toShip!.orderNumber}` }).waitFor();
    await screenshot(page, 'owner-order', t);
    await accessible(page, t, 'an order');

    await page.getByLabel('Carrier').fill('UPS');
    await page.getByLabel('Service').fill('Ground');
    await page.getByLabel('Tracking number').fill('1Z999AA10123456784');
    await page
      .getByLabel('Tracking URL (optional)')
      .fill('https://www.ups.com/track?tracknum=1Z999AA10123456784');
    await page.getByRole('button', { name: 'Mark as fulfilled' }).click();
    await page.getByText('The shipment was saved and the order marked fulfilled.').waitFor();
    assert.equal(await page.getByRole('link', { name: '1Z999AA10123456784' }).count(), 1);
    await screenshot(page, 'owner-order-fulfilled', t);
    const [notification] = await receiver.got(1);
    assert.deepEqual(notification!.json.data, { orderId: toShip!.id, update: 'FULFILLED' });

    await page.goto(`${origin}/sites/${site.websiteId}/orders/${toCancel!.id}`);
    await page.getByRole('checkbox', { name: /Restock items/ }).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: /Restock items/ }).isChecked(), true);
    await page.getByRole('checkbox', { name: /Yes, cancel order/ }).check();
    await page.getByRole('button', { name: 'Cancel order' }).click();
    await page.getByText('The order was canceled and its items put back in stock.').waitFor();
    await accessible(page, t, 'a canceled order');
    const [, canceled] = await receiver.got(2);
    assert.deepEqual(canceled!.json.data, { orderId: toCancel!.id, update: 'CANCELED' });
    const api = await site.call({ method: 'GET', url: `${ORDERS}/${toCancel!.id}` });
    assert.equal(api.json().fulfillmentStatus, 'CANCELED');

    await page.goto(`${origin}/sites/${site.websiteId}`);
    await page.getByText('6 orders awaiting fulfillment').waitFor();
    await page.close();
  },
);
