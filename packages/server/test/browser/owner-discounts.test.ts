/**
 * The owner's discount pages in Chromium, against the service on 127.0.0.1: the owner signs in,
 * goes from the site page to its discounts and creates one with the keyboard alone (Tab between
 * the fields, Enter to submit), sees a refused value beside its field, and every page passes
 * axe-core with no serious or critical violation. Skipped without Chromium, like the other
 * browser tests. The contact list, its search and a contact's page pass axe too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createOrder } from '../../src/orders/orders.service.ts';
import { accessible, browserApp, skipWithoutChromium } from '../helpers/chromium.ts';
import { address, addEntry } from '../helpers/contacts.ts';
import { nativeDraft } from '../helpers/orders.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';
import { ownerEmailOf } from '../helpers/owner-pages.ts';

const skip = skipWithoutChromium;

let ctx: TestContext;
let origin: string;
let site: Site;
let email: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp());
  site = await ctx.site();
  email = await ownerEmailOf(ctx, site);
});
after(async () => {
  if (skip) return;
  await close?.();
});

/** The label of the element that has the focus, to follow Tab through the form. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLInputElement | null;
    return el?.labels?.[0]?.textContent?.trim() ?? el?.textContent?.trim() ?? '';
  });

async function tabTo(page: Page, label: string) {
  for (let i = 0; i < 30; i++) {
    if ((await focused(page)) === label) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached "${label}"`);
}

test(
  'a discount created with the keyboard alone; a refused value shown beside its field',
  { skip, timeout: 90_000 },
  async (t) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${origin}/sites/${site.websiteId}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/sites/${site.websiteId}`);

    await page.getByRole('link', { name: 'Discounts', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/sites/${site.websiteId}/discounts`);
    await accessible(page, t, 'the empty discount list');
    await page.getByRole('link', { name: 'New discount' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New discount' }).waitFor();
    await accessible(page, t, 'the new discount form');

    await page.getByLabel('Name').focus();
    await page.keyboard.type('Welcome 15');
    await tabTo(page, 'Promo code');
    await page.keyboard.type('WELCOME15');
    await tabTo(page, 'Percentage off');
    await page.keyboard.type('150');
    await page.keyboard.press('Enter');
    const error = page.locator('#discount-percentage-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /100/);
    assert.equal(await page.getByLabel('Name').inputValue(), 'Welcome 15');
    assert.equal(await page.getByLabel('Percentage off').getAttribute('aria-invalid'), 'true');
    await accessible(page, t, 'the refused form');

    await page.getByLabel('Percentage off').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('15');
    await page.keyboard.press('Enter');
    await page.getByText('Discount created.').waitFor();
    await page.getByRole('cell', { name: 'WELCOME15' }).waitFor();
    await accessible(page, t, 'the discount list');

    const api = await site.call({ method: 'GET', url: '/v1/commerce/discounts' });
    const [made] = api.json().discounts;
    assert.equal(made.name, 'Welcome 15');
    assert.deepEqual(made.template, { type: 'PERCENTAGE', percentage: 15 });
    assert.deepEqual(made.trigger, { type: 'CODE', promoCode: 'WELCOME15' });

    await page.getByRole('link', { name: 'Delete Welcome 15' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: /Yes, delete/ }).waitFor();
    await accessible(page, t, 'the delete confirmation');
    await page.close();
  },
);

test(
  'the contact list, its search and a contact with an order and an address pass axe',
  { skip, timeout: 60_000 },
  async (t) => {
    const draft = nativeDraft(ctx.clock.now(), { customerEmail: 'grace@example.com' });
    const placed = (await createOrder(ctx.api, site.websiteId, draft)).order;
    await addEntry(site, placed.customerId!, { address: address() });
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${origin}/sites/${site.websiteId}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin}/sites/${site.websiteId}`);
    await page.getByRole('link', { name: 'Contacts', exact: true }).click();
    await page.getByLabel('Search by name or e-mail').fill('grace@');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'grace@example.com' }).waitFor();
    await accessible(page, t, 'the contact list, searched');
    await page.getByRole('table').getByRole('link').first().click();
    await page.getByRole('link', { name: `#${placed.orderNumber}` }).waitFor();
    await accessible(page, t, 'a contact');
    await page.close();
  },
);
