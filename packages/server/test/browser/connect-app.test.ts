/**
 * The example app (examples/connect-app) through the whole consent flow in Chromium, against the
 * service on 127.0.0.1: the owner connects their store from the app (declining once, then
 * allowing), the app lists the store's products with tokens it got through the SDK, and when the
 * owner revokes it on their site page the app hears extension.uninstall and forgets the store.
 * Both run in this process. Skipped without Chromium, like consent-flow.test.ts.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startApp, type RunningApp } from '../../../../examples/connect-app/src/app.ts';
import { freePort } from '../../src/shared/net.ts';
import { createClient } from '../../src/oauth/clients.service.ts';
import { browserApp, screenshot, skipWithoutChromium } from '../helpers/chromium.ts';
import type { Site, TestContext } from '../helpers/test-app.ts';
import { ownerEmailOf } from '../helpers/owner-pages.ts';

const skip = skipWithoutChromium;
/** A name the app must show as text, not as markup. */
const TRICKY_NAME = 'Mug <b>"Blue"</b> & Co';

let ctx: TestContext;
let origin: string;
let site: Site;
let email: string;
let connectApp: RunningApp;
let dataDir: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

before(async () => {
  if (skip) return;
  ({ ctx, origin, browser, close } = await browserApp({ webhookWorkers: 1 }));

  site = await ctx.site();
  email = await ownerEmailOf(ctx, site);
  for (const payload of [
    {
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name: 'Linen Shirt',
      variants: [{ sku: 'SHIRT-S', pricing: { basePrice: { currency: 'USD', value: '39.00' } } }],
    },
    {
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name: TRICKY_NAME,
      variants: [{ sku: 'MUG-1', pricing: { basePrice: { currency: 'USD', value: '12.50' } } }],
    },
  ]) {
    const res = await site.call({ method: 'POST', url: '/1.1/commerce/products', payload });
    assert.equal(res.statusCode, 201, res.body);
  }

  // The developer registers the app with its redirect URI, as the README says to at /apps.
  const appUrl = `http://127.0.0.1:${await freePort()}`;
  const { clientId, clientSecret } = await createClient(ctx, {
    ownerEmail: email,
    name: 'Connect App',
    redirectUris: [`${appUrl}/callback`],
  });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-app-'));
  connectApp = await startApp({
    clientId,
    clientSecret,
    baseUrl: origin,
    authUrl: origin,
    port: Number(new URL(appUrl).port),
    appUrl,
    dataFile: path.join(dataDir, 'data.json'),
  });
});
after(async () => {
  if (skip) return;
  await connectApp?.close();
  await close?.();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test(
  'the example app: connect (Deny, then Allow), list products, forget the site on revoke',
  { skip, timeout: 60_000 },
  async (t) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);

    await page.goto(connectApp.url);
    await page.getByText('No store is connected yet.').waitFor();
    await page.getByRole('link', { name: 'Connect a store' }).click();
    await page.waitForURL(/\/login\?next=/);
    assert.ok(page.url().startsWith(`${origin}/login`), page.url());
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();

    // The owner declines first: the app says so and holds nothing.
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('The store owner declined to connect their store').waitFor();
    assert.ok(page.url().startsWith(`${connectApp.url}/callback?error=access_denied`), page.url());
    await screenshot(page, 'connect-app-declined', t);

    // Then allows (already signed in at Emporium, so straight to the consent page).
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /Connect App wants access to your site/);
    await screenshot(page, 'connect-app-consent', t);
    await page.getByRole('button', { name: 'Allow' }).click();

    await page.waitForURL(`${connectApp.url}/sites/${site.websiteId}`);
    const rows = await page
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );
    assert.deepEqual(
      rows.sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      [
        ['Linen Shirt', 'SHIRT-S', '39.00 USD'],
        [TRICKY_NAME, 'MUG-1', '12.50 USD'],
      ],
    );
    assert.equal(await page.locator('main b').count(), 0, 'the product name is text, not markup');
    await screenshot(page, 'connect-app-products', t);

    // An access token past its time: the SDK refreshes it through the store, unasked.
    const tokenFile = path.join(dataDir, 'data.tokens.json');
    const stored = JSON.parse(fs.readFileSync(tokenFile, 'utf8'));
    const before = stored[site.websiteId].accessToken;
    stored[site.websiteId].accessTokenExpiresAt = 0;
    fs.writeFileSync(tokenFile, JSON.stringify(stored));
    await page.reload();
    await page.getByRole('cell', { name: 'SHIRT-S' }).waitFor();
    assert.notEqual(JSON.parse(fs.readFileSync(tokenFile, 'utf8'))[site.websiteId].accessToken, before);

    // A notification that is not signed with the site's secret is refused.
    const forged = await fetch(`${connectApp.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'squarespace-signature': 'ab'.repeat(32) },
      body: JSON.stringify({ id: 'n1', websiteId: site.websiteId, topic: 'extension.uninstall', data: {} }),
    });
    assert.equal(forged.status, 401);

    await page.goto(connectApp.url);
    await page.getByRole('link', { name: 'Test Store' }).waitFor();
    await screenshot(page, 'connect-app-home', t);

    // The owner revokes the app on their site page; the app hears extension.uninstall.
    const forgotten = once(connectApp.events, 'forgotten', { signal: AbortSignal.timeout(15_000) });
    await page.goto(`${origin}/sites/${site.websiteId}`);
    await page.getByRole('button', { name: 'Revoke Connect App' }).click();
    await page.getByText('No app holds access to this site.').waitFor();
    assert.deepEqual(await forgotten, [site.websiteId]);
    for (const file of fs.readdirSync(dataDir)) {
      const content = fs.readFileSync(path.join(dataDir, file), 'utf8');
      assert.ok(!content.includes(site.websiteId), `${file} keeps nothing of the site`);
    }

    await page.goto(connectApp.url);
    await page.getByText('No store is connected yet.').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Test Store' }).count(), 0);
    await screenshot(page, 'connect-app-forgotten', t);
    await page.goto(`${connectApp.url}/sites/${site.websiteId}`);
    await page.getByText('This store is not connected').waitFor();
    await page.close();
  },
);
