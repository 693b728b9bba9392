/**
 * Every owner page in Chromium at a laptop's width (1280 px) and a phone's (390 px), filled with
 * long content (names, e-mails, SKUs, scopes, URLs): the document is never wider than the window,
 * no table or cell is cut off, and a table wider than a phone scrolls inside a box of its own that
 * the keyboard reaches and a screen reader names; at a laptop's width no table needs to scroll.
 * axe-core runs on each page at each width. A screenshot of each page at each width goes to
 * test-output/screenshots/owner-layout-<page>-<width>.png. Skipped without Chromium, like the
 * other browser tests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { createOrder } from '../../src/orders/orders.service.ts';
import { createClient } from '../../src/oauth/clients.service.ts';
import { AUTHORIZE_PATH } from '../../src/admin/consent.routes.ts';
import { axeViolations } from '../helpers/axe.ts';
import { createDiscount } from '../helpers/checkout-discounts.ts';
import { browserApp, screenshot, skipWithoutChromium } from '../helpers/chromium.ts';
import { address, addEntry, contactBody, createContact } from '../helpers/contacts.ts';
import { createProduct, money, physical, variant } from '../helpers/factories.ts';
import { basic } from '../helpers/oauth.ts';
import { nativeDraft, ORDERS } from '../helpers/orders.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';
import { connectApp, Receiver } from '../helpers/webhooks.ts';

const skip = skipWithoutChromium;
const WIDTHS = [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const DAY = 86_400_000;
/** Long as real ones get: the e-mail is in every page's header, the site's title in headings and links. */
const EMAIL = 'maria-fernanda.delacruz-ortega@northwind-trading-company.example';
const TITLE = 'Northwind Stoneware, Linen & Household Curiosities';
const CALLBACK = 'https://label-printer.example.com/emporium/oauth/callback';

let ctx: TestContext;
let origin: string;
let site: Site;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
/** The signed-in owner's browser, and one that is signed out for the sign-in pages. */
let owner: BrowserContext;
let visitor: BrowserContext;
let receiver: Receiver;
const ids = { product: '', order: '', contact: '', discount: '', client: '' };

/** A storefront-like order of the mugs and tote to `email`, placed `daysAgo` days before now. */
async function order(email: string, variants: string[], daysAgo: number) {
  const lines = variants.map((variantId, i) => ({
    lineItemType: 'PHYSICAL_PRODUCT' as const,
    variantId,
    title: null,
    quantity: i + 1,
    unitPricePaidMinor: 2450,
    customizations: null,
  }));
  const subtotal = lines.reduce((sum, l) => sum + l.quantity * l.unitPricePaidMinor, 0);
  const to = {
    firstName: 'Maria Fernanda',
    lastName: 'de la Cruz Ortega',
    address1: 'Apartment 14B, Building Los Jacarandás, 1234 Avenida Insurgentes Sur',
    address2: 'Colonia Del Valle Centro, Alcaldía Benito Juárez',
    city: 'Ciudad de México',
    state: 'CDMX',
    countryCode: 'MX',
    postalCode: '03100',
    phone: '+52 55 1234 5678',
  };
  const draft = nativeDraft(new Date(ctx.clock.now().getTime() - daysAgo * DAY), {
    customerEmail: email,
    billingAddress: to,
    shippingAddress: to,
    lines,
    shippingLines: [{ method: 'Express international shipping, insured and tracked', amountMinor: 1995 }],
    subtotalMinor: subtotal,
    shippingTotalMinor: 1995,
    grandTotalMinor: subtotal + 1995,
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp({ webhookWorkers: 1 }));
  site = await ctx.site();
  const { owner_id } = await ctx.db
    .selectFrom('websites')
    .select('owner_id')
    .where('id', '=', site.websiteId)
    .executeTakeFirstOrThrow();
  await ctx.db.updateTable('owners').set({ email: EMAIL }).where('id', '=', owner_id).execute();
  await ctx.db.updateTable('websites').set({ title: TITLE }).where('id', '=', site.websiteId).execute();

  const mugs = await createProduct(
    site,
    physical(site, {
      name: 'Hand-thrown stoneware breakfast mug with speckled oatmeal glaze, set of four',
      isVisible: true,
      variantAttributes: ['Glaze', 'Size'],
      variants: ['Oatmeal', 'Midnight blue'].map((glaze, i) =>
        variant(`STONEWARE-MUG-${i ? 'MIDNIGHTBLUE' : 'OATMEAL'}-SPECKLED-350ML-SET4`, {
          attributes: { Glaze: glaze, Size: '350 ml (12 fl oz)' },
          pricing: { basePrice: money('96.00') },
          stock: { quantity: 40 },
        }),
      ),
    }),
  );
  const tote = await createProduct(
    site,
    physical(site, {
      name: 'Heavyweight waxed canvas market tote with leather handles',
      isVisible: true,
      variants: [variant('TOTE-WAXED-CANVAS-NATURAL-LARGE', { stock: { quantity: 12 } })],
    }),
  );
  await createProduct(site, physical(site, { name: 'Linen napkins', variants: [variant('NAPKIN-4')] }));
  ids.product = mugs.id;
  const variants = [mugs.variants[0].id, mugs.variants[1].id, tote.variants[0].id];

  const buyers = [
    'maria-fernanda.delacruz-ortega@northwind-trading-company.example',
    'procurement.department+stoneware-reorders@very-large-hospitality-group.example',
    'ada@example.com',
  ];
  const placed = [];
  for (const [i, email] of [...buyers, ...buyers].entries()) {
    placed.push(await order(email, variants.slice(0, (i % 3) + 1), i));
  }
  ids.order = placed[0]!.id;
  ids.contact = placed[0]!.customerId!;
  const shipped = await site.call({
    method: 'POST',
    url: `${ORDERS}/${placed[0]!.id}/fulfillments`,
    payload: {
      shipments: [
        {
          shipDate: ctx.clock.now().toISOString(),
          carrierName: 'DHL Express Worldwide',
          service: 'Express Worldwide, delivery before noon',
          trackingNumber: 'JJD0099999999999999999999',
          trackingUrl:
            'https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=JJD0099999999999999999999',
        },
      ],
    },
  });
  assert.equal(shipped.statusCode, 204, shipped.body);
  await addEntry(site, ids.contact, {
    address: address({ line1: 'Apartment 14B, Building Los Jacarandás' }),
  });
  await createContact(
    site,
    contactBody(
      { firstName: 'Bartholomew Alexander', lastName: 'Featherstonehaugh-Cholmondeley' },
      'bartholomew.featherstonehaugh-cholmondeley@longest-family-names-society.example',
    ),
  );

  const discount = await createDiscount(site, {
    name: 'Spring clearance: stoneware and linen for returning customers',
    trigger: { type: 'CODE', promoCode: 'SPRING-CLEARANCE-STONEWARE-LINEN-2026-VIP' },
    criteria: { type: 'CART_TOTAL', minimumCartTotal: money('150.00') },
    template: { type: 'FIXED_AMOUNT', discountAmount: money('25.00') },
    isLimitedUses: true,
    maxUsesAllowed: 1000,
  });
  ids.discount = discount.id;
  await createDiscount(site, { name: 'Ten percent off everything, automatically' });

  // The owner's own app: on the developer pages, as an extension, connected to the site with a
  // webhook subscription (whose notifications of two fulfillments are listed), and asking for
  // consent.
  const client = await createClient(ctx, {
    ownerEmail: EMAIL,
    name: 'Warehouse label printer and shipping manifest sync',
    redirectUris: [CALLBACK, 'https://label-printer.example.com/emporium/oauth/callback-for-staging'],
    initiateUrl: 'https://label-printer.example.com/emporium/connect',
    termsUrl: 'https://label-printer.example.com/legal/terms-of-service',
    privacyUrl: 'https://label-printer.example.com/legal/privacy-policy',
  });
  ids.client = client.clientId;
  const app = { ...client, authorization: basic(client.clientId, client.clientSecret) };
  const connected = await connectApp(ctx, ['website.orders', 'website.products', 'website.contacts'], {
    app,
    site,
  });
  receiver = await new Receiver().start();
  const subscribed = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: `${receiver.url}/order-updates?account=northwind-stoneware-linen-household-curiosities`,
    topics: ['order.update'],
  });
  assert.equal(subscribed.statusCode, 201, subscribed.body);
  for (const fulfilled of placed.slice(1, 3)) {
    const res = await site.call({
      method: 'POST',
      url: `${ORDERS}/${fulfilled.id}/fulfillments`,
      payload: {},
    });
    assert.equal(res.statusCode, 204, res.body);
  }
  await receiver.got(2);

  visitor = await browser.newContext();
  owner = await browser.newContext();
  const page = await owner.newPage();
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/sites`);
  await page.close();
});
after(async () => {
  if (skip) return;
  await receiver?.stop();
  await close?.();
});

/**
 * What does not fit on the page as it is laid out now: the document wider than the window; a
 * table in a box narrower than itself that hides the rest (or, at `laptop` width, any such box:
 * the table should fit the page), or in a scrolling box the keyboard cannot reach or that has
 * no name; a cell, or anything else, that hides part of its content. Run in the page, so no
 * named inner functions (the TypeScript loader would wrap them in a helper the page lacks).
 */
function misfits(laptop: boolean): string[] {
  const found: [Element, string][] = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth) {
    const past = [...document.body.querySelectorAll('*')].filter(
      (el) => el.getBoundingClientRect().right > window.innerWidth + 0.5,
    );
    found.push([
      past.at(-1) ?? doc,
      `the document is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window`,
    ]);
  }
  for (const table of document.querySelectorAll('table')) {
    const width = table.getBoundingClientRect().width;
    for (let box = table.parentElement; box && box !== document.body; box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === 'visible' || box.clientWidth >= width - 0.5) continue;
      const what = `a table ${Math.round(width)} px wide in a box of ${box.clientWidth} px (overflow ${overflow})`;
      if (overflow !== 'auto' && overflow !== 'scroll') found.push([box, `${what} is cut off`]);
      else if (laptop) found.push([box, `${what} is cut off until scrolled, at a laptop's width`]);
      else if (box.getAttribute('tabindex') !== '0')
        found.push([box, `${what} scrolls, but not from the keyboard`]);
      else if (!box.getAttribute('aria-label') && !box.getAttribute('aria-labelledby')) {
        found.push([box, `${what} scrolls in a box with no name`]);
      }
    }
  }
  // Anything that hides what it holds: a cell with overflow hidden, text cut with an ellipsis.
  for (const el of document.body.querySelectorAll('*')) {
    if (el.matches('input, textarea, select, option, svg *') || el.clientWidth <= 1) continue;
    const overflow = getComputedStyle(el).overflowX;
    if ((overflow === 'hidden' || overflow === 'clip') && el.scrollWidth > el.clientWidth + 1) {
      found.push([el, `it hides ${el.scrollWidth - el.clientWidth} px of its content`]);
    }
  }
  return found.map(
    ([el, what]) =>
      `${el.tagName.toLowerCase()}${[...el.classList].map((c) => `.${c}`).join('')} ` +
      `"${(el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)}": ${what}`,
  );
}

/** An owner page; `url` is read once the seeding is done. */
interface OwnerPage {
  name: string;
  url: () => string;
  signedOut?: boolean;
}
const at = (rest = '') => `/sites/${site.websiteId}${rest}`;
const PAGES: OwnerPage[] = [
  { name: 'sign-in', url: () => '/login', signedOut: true },
  { name: 'sign-up', url: () => '/signup', signedOut: true },
  { name: 'sites', url: () => '/sites' },
  { name: 'dashboard', url: () => at() },
  { name: 'products', url: () => at('/products') },
  { name: 'product-new', url: () => at('/products/new') },
  { name: 'product-edit', url: () => at(`/products/${ids.product}`) },
  { name: 'orders', url: () => at('/orders') },
  { name: 'order', url: () => at(`/orders/${ids.order}`) },
  { name: 'contacts', url: () => at('/contacts') },
  { name: 'contact', url: () => at(`/contacts/${ids.contact}`) },
  { name: 'discounts', url: () => at('/discounts') },
  { name: 'discount-new', url: () => at('/discounts/new') },
  { name: 'discount-edit', url: () => at(`/discounts/${ids.discount}`) },
  { name: 'api-keys', url: () => at('/keys') },
  { name: 'developer-apps', url: () => '/apps' },
  { name: 'developer-app', url: () => `/apps/${ids.client}` },
  { name: 'extensions', url: () => at('/extensions') },
  { name: 'webhooks', url: () => at('/webhooks') },
  {
    name: 'consent',
    url: () =>
      `${AUTHORIZE_PATH}?${new URLSearchParams({
        client_id: ids.client,
        redirect_uri: CALLBACK,
        scope: 'website.orders,website.products,website.contacts.read,website.inventory',
        state: 'layout',
        access_type: 'offline',
      })}`,
  },
];

describe('owner pages at a laptop’s width and a phone’s', { skip }, () => {
  for (const ownerPage of PAGES) {
    test(`${ownerPage.name}: fits at 1280 px and 390 px`, { timeout: 60_000 }, async (t) => {
      const page = await (ownerPage.signedOut ? visitor : owner).newPage();
      page.setDefaultTimeout(10_000);
      const problems: string[] = [];
      for (const size of WIDTHS) {
        await page.setViewportSize({ width: size.width, height: size.height });
        const res = await page.goto(`${origin}${ownerPage.url()}`);
        assert.equal(res?.status(), 200, `${ownerPage.name}: ${page.url()}`);
        // What <details> hold counts too (the dashboard's revenue table).
        await page.$$eval('details', (all) => all.forEach((d) => d.setAttribute('open', '')));
        await screenshot(page, `owner-layout-${ownerPage.name}-${size.width}`, t);
        for (const problem of await page.evaluate(misfits, size.name === 'laptop')) {
          problems.push(`${size.width} px: ${problem}`);
        }
        const failing = await axeViolations(page, t, `${ownerPage.name} at ${size.width} px`);
        for (const v of failing) problems.push(`${size.width} px: axe ${v.id}: ${v.targets.join(', ')}`);
      }
      await page.close();
      assert.deepEqual(problems, [], `${ownerPage.name} fits both widths`);
    });
  }
});
