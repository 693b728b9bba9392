/**
 * The owner's refund of a paid order in Chromium, against the service on 127.0.0.1: the owner
 * signs in, opens the order's page, refunds one of its three mugs with restock by typing the
 * quantity into the form, sees the notice, the refund listed and what is left to refund, then
 * refunds everything left and sees the order refunded. A subscribed app receives order.update
 * REFUNDED for each, and the mugs are back in stock. axe-core finds no serious or critical
 * violation on the page before and after, and the page is no wider than a phone's window.
 * Screenshots of each step. Skipped without Chromium, like the other browser tests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createOrder } from '../../src/orders/orders.service.ts';
import {
  accessible,
  browserApp,
  type Diagnostics,
  fitsPhone,
  screenshot,
  skipWithoutChromium,
} from '../helpers/chromium.ts';
import { createProduct, money, physical, variant } from '../helpers/factories.ts';
import { nativeDraft, ORDERS } from '../helpers/orders.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';
import { connectApp, Receiver } from '../helpers/webhooks.ts';
import { ownerEmailOf } from '../helpers/owner-pages.ts';

const skip = skipWithoutChromium;
const MUG = 'Stoneware Mug';

let ctx: TestContext;
let origin: string;
let site: Site;
let email: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let receiver: Receiver;
let variantId: string;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp({ webhookWorkers: 1 }));
  receiver = await new Receiver().start();
  const connected = await connectApp(ctx, ['website.orders', 'website.inventory.read']);
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
      name: MUG,
      isVisible: true,
      variants: [
        variant('MUG-SAND', {
          pricing: { basePrice: money('10.00') },
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

/**
 * Three mugs at 10.00 with 1.00 off and 7% tax on 29.00 (2.03), 4.50 shipping: 35.53 paid by
 * card, as refunds.test.ts has it. One mug refunds at a third of its line's 31.03: 10.34.
 */
async function paidOrder() {
  const now = ctx.clock.now();
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
  const draft = nativeDraft(now, {
    customerEmail: 'ada@example.com',
    billingAddress: address,
    shippingAddress: address,
    lines: [
      {
        lineItemType: 'PHYSICAL_PRODUCT',
        variantId,
        title: null,
        quantity: 3,
        unitPricePaidMinor: 1000,
        customizations: null,
      },
    ],
    subtotalMinor: 3000,
    discountTotalMinor: 100,
    discountLines: [{ name: 'Spring', amountMinor: 100, promoCode: 'SPRING' }],
    taxTotalMinor: 203,
    shippingTotalMinor: 450,
    shippingLines: [{ method: 'Standard shipping', amountMinor: 450 }],
    grandTotalMinor: 3553,
    payment: {
      provider: 'STRIPE',
      creditCardType: 'VISA',
      externalTransactionId: 'ch_test_browser_refund',
      paidOn: now,
      processingFeeMinor: 133,
    },
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

async function stock(): Promise<number> {
  const res = await site.call({ method: 'GET', url: `/1.0/commerce/inventory/${variantId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().inventory[0].quantity;
}

/** axe-core on the page at a laptop's width, then no wider than a phone's window at 390 px. */
async function checked(page: Page, t: Diagnostics, label: string) {
  await accessible(page, t, label);
  await fitsPhone(page, t, label, `owner-refund-${label.replaceAll(' ', '-')}-390`);
}

/** The refunds made, as the page lists them: amount, what for, restocked. */
async function refundsListed(page: Page): Promise<string[][]> {
  return page
    .getByRole('region', { name: 'Refunds made' })
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent?.trim() ?? '')),
    );
}

test(
  'a paid order: one mug refunded with restock through the form, then everything left; axe passes before and after',
  { skip, timeout: 90_000 },
  async (t) => {
    const order = await paidOrder();
    assert.equal(await stock(), 17);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(10_000);
    const url = `${origin}/sites/${site.websiteId}/orders/${order.id}`;

    await page.goto(url);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(url);
    await page.getByRole('heading', { name: `Order #${order.orderNumber}` }).waitFor();
    await page.getByRole('heading', { name: 'Refunds' }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /Left to refund: 35\.53 USD\./);
    assert.equal(await page.getByRole('region', { name: 'Refunds made' }).count(), 0);
    await screenshot(page, 'owner-refund-before', t);
    await checked(page, t, 'the order before its refunds');

    // One of the three mugs, typed into the line's box; restock is ticked by default.
    const quantity = page.getByLabel(MUG);
    assert.equal(await quantity.getAttribute('max'), '3');
    await quantity.fill('1');
    const partForm = page.locator('form').filter({ has: quantity });
    const restock = partForm.getByRole('checkbox', { name: 'Put the refunded items back in stock' });
    assert.equal(await restock.isChecked(), true);
    await partForm.getByRole('button', { name: 'Refund', exact: true }).click();

    await page.waitForURL(`${url}?refunded=1`);
    await page.getByText('The refund was made, and the buyer e-mailed a refund notice.').waitFor();
    assert.deepEqual(await refundsListed(page), [['10.34 USD', `1 × ${MUG}`, 'yes']]);
    assert.match((await page.textContent('main')) ?? '', /Left to refund: 25\.19 USD\./);
    assert.equal(await page.getByLabel(MUG).getAttribute('max'), '2', 'two mugs are left to refund');
    assert.match(
      (await page.getByRole('region', { name: 'Totals' }).textContent()) ?? '',
      /Refunded\s*10\.34 USD/,
    );
    assert.equal(await page.getByText('Payment: Paid').count(), 1, 'a part refund keeps the order paid');
    assert.equal(await stock(), 18);
    const [first] = await receiver.got(1);
    assert.deepEqual(first!.json.data, { orderId: order.id, update: 'REFUNDED' });
    await screenshot(page, 'owner-refund-part', t);
    await checked(page, t, 'the order refunded in part');

    await page.getByRole('button', { name: 'Refund everything left (25.19 USD)' }).click();
    await page.waitForURL(`${url}?refunded=1`);
    await page.getByText('The refund was made, and the buyer e-mailed a refund notice.').waitFor();
    await page.getByText('Payment: Refunded').waitFor();
    await page.getByText(`Order #${order.orderNumber} is already refunded in full.`).waitFor();
    assert.deepEqual(await refundsListed(page), [
      ['10.34 USD', `1 × ${MUG}`, 'yes'],
      ['25.19 USD', `2 × ${MUG}, shipping 4.50 USD`, 'yes'],
    ]);
    assert.equal(await page.getByRole('button', { name: /^Refund/ }).count(), 0, 'nothing left to refund');
    assert.equal(await stock(), 20);
    const [, second] = await receiver.got(2);
    assert.deepEqual(second!.json.data, { orderId: order.id, update: 'REFUNDED' });
    const api = await site.call({ method: 'GET', url: `${ORDERS}/${order.id}` });
    assert.equal(api.json().paymentState, 'REFUNDED');
    assert.deepEqual(api.json().refundedTotal, { currency: 'USD', value: '35.53' });
    await screenshot(page, 'owner-refund-full', t);
    await checked(page, t, 'the order refunded in full');
    await page.close();
  },
);
