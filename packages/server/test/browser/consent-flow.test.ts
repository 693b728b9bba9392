/**
 * The consent flow in a real browser: Debian's Chromium driven by playwright-core, against the
 * service listening on 127.0.0.1 and a small redirect receiver standing in for a third-party
 * app. Screenshots of the sign-in, consent and connected-apps pages go to test-output/ (their
 * paths are in the test's output). `.ci/run` installs Chromium; without it these tests are
 * skipped with a message saying so.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { TOKEN_PATH } from '../../src/oauth/token.routes.ts';
import { AUTHORIZE_PATH } from '../../src/admin/consent.routes.ts';
import { browserApp, screenshot, skipWithoutChromium } from '../helpers/chromium.ts';

const skip = skipWithoutChromium;

let origin: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let receiver: http.Server;
let callback: string;
/** What the app's redirect URI received, in order. */
const received: URLSearchParams[] = [];

before(async () => {
  if (skip) return;
  ({ origin, browser, close } = await browserApp());
  receiver = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/callback') received.push(url.searchParams); // not the browser's /favicon.ico
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Back at the app</h1>');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/callback`;
});
after(async () => {
  if (skip) return;
  await new Promise((resolve) => receiver.close(resolve));
  await close?.();
});

/** A page that gives up on a missing element in 10 s rather than Playwright's 30. */
async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

async function signIn(page: Page, email: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the consent flow in Chromium', { skip }, () => {
  const email = 'browser-owner@example.com';
  let websiteId = '';
  let clientId = '';
  let clientSecret = '';
  let accessToken = '';

  test('an owner signs up, adds a site and registers an app with an icon', async () => {
    const page = await newPage();
    await page.goto(`${origin}/signup`);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel(/^Password/).fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${origin}/sites`);
    await page.getByLabel('Title').fill('Browser Shop');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.waitForURL(/\/sites\/[0-9a-f]{24}$/);
    websiteId = page.url().split('/').pop()!;

    await page.goto(`${origin}/apps`);
    await page.getByLabel('Name').fill('Label Printer');
    await page.getByLabel(/Redirect URIs/).fill(callback);
    const icon = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#2271b1' } })
      .png()
      .toBuffer();
    await page.getByLabel(/Icon/).setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: icon });
    await page.getByRole('button', { name: 'Register' }).click();
    clientSecret = (await page.locator('code.secret').textContent()) ?? '';
    assert.match(clientSecret, /^emp_cs_[A-Za-z0-9_-]{43}$/);
    clientId = /Client id: ([0-9a-f]{24})/.exec((await page.textContent('main')) ?? '')![1]!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin}/login`);
    await page.close();
  });

  test('an app sends the owner to consent: sign in, Allow, code for tokens, the API answers', async (t) => {
    const page = await newPage();
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback,
      scope: 'website.products.read',
      state: 'state-from-the-app',
      access_type: 'offline',
    });
    await page.goto(`${origin}${AUTHORIZE_PATH}?${query}`);
    await page.waitForURL(/\/login\?next=/);
    await screenshot(page, 'login', t);
    await signIn(page, email);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    assert.match((await page.textContent('main')) ?? '', /Label Printer wants access to your site/);
    assert.match((await page.textContent('main')) ?? '', /View product information/);
    assert.ok(await page.locator(`img[src="/apps/${clientId}/icon"]`).isVisible(), 'the app icon is shown');
    await screenshot(page, 'consent', t);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('Back at the app').waitFor();
    const answer = received.at(-1)!;
    assert.equal(answer.get('state'), 'state-from-the-app');
    const code = answer.get('code')!;

    const tokens = await fetch(`${origin}${TOKEN_PATH}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'label-printer/1.0',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callback }),
    });
    assert.equal(tokens.status, 200);
    accessToken = ((await tokens.json()) as { access_token: string }).access_token;
    const site = await fetch(`${origin}/1.0/authorization/website`, {
      headers: { authorization: `Bearer ${accessToken}`, 'user-agent': 'label-printer/1.0' },
    });
    assert.equal(site.status, 200);
    assert.equal(((await site.json()) as { id: string }).id, websiteId);
    const member = await fetch(`${origin}/1.0/authorization/member`, {
      headers: { authorization: `Bearer ${accessToken}`, 'user-agent': 'label-printer/1.0' },
    });
    assert.equal(member.status, 200);
    assert.deepEqual(
      { ...((await member.json()) as Record<string, string>), id: '' },
      { id: '', firstName: 'Ada', lastName: 'Lovelace', email },
      'the names given at sign-up',
    );
    await page.close();
  });

  test('Deny sends the owner back with error=access_denied and nothing else', async () => {
    const page = await newPage();
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback,
      scope: 'website.products',
      state: 's2',
    });
    await page.goto(`${origin}${AUTHORIZE_PATH}?${query}`);
    await signIn(page, email);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Back at the app').waitFor();
    assert.deepEqual([...received.at(-1)!], [['error', 'access_denied']]);
    await page.close();
  });

  test('Revoke on the connected apps page, and the API answers 401', async (t) => {
    const page = await newPage();
    await page.goto(`${origin}/login?next=/sites/${websiteId}`);
    await signIn(page, email);
    await page.getByRole('button', { name: 'Revoke Label Printer' }).waitFor();
    await screenshot(page, 'connected-apps', t);
    await page.getByRole('button', { name: 'Revoke Label Printer' }).click();
    await page.getByText('No app holds access to this site.').waitFor();
    const res = await fetch(`${origin}/1.1/commerce/products`, {
      headers: { authorization: `Bearer ${accessToken}`, 'user-agent': 'label-printer/1.0' },
    });
    assert.equal(res.status, 401);
    await page.close();
  });
});
