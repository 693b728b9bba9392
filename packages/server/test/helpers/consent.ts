import assert from 'node:assert/strict';
import { AUTHORIZE_PATH, CONSENT_PATH } from '../../src/admin/consent.routes.ts';
import { createClient } from '../../src/oauth/clients.service.ts';
import { TestBrowser } from './browser.ts';
import { basic, REDIRECT_URI, type App } from './oauth.ts';
import { testApp, type TestContext } from './test-app.ts';

/*
 * What the tests of the owner's pages share (sign-in, consent, the sites' pages): owners who sign
 * up in a browser, and an app's authorization request followed to the consent page and answered
 * there, as the owner would.
 */

/**
 * A silent test app with an app to connect: its name needs escaping on the page, and its second
 * redirect URI has a query of its own.
 */
export async function consentTestApp(): Promise<{ ctx: TestContext; app: App }> {
  const ctx = await testApp({ logLevel: 'silent' });
  const developer = new TestBrowser(ctx.app);
  await developer.signUp('developer@example.com');
  const { clientId, clientSecret } = await createClient(ctx, {
    ownerEmail: 'developer@example.com',
    name: 'Label <Printer>',
    redirectUris: [REDIRECT_URI, 'https://app.example.com/callback?tenant=7'],
  });
  return { ctx, app: { clientId, clientSecret, authorization: basic(clientId, clientSecret) } };
}

let owners = 0;
/** An e-mail address no owner of this test file has. */
export const newOwnerEmail = () => `owner${++owners}@example.com`;

/** A signed-in owner with one site (or the titles given). */
export async function signedUpOwner(ctx: TestContext, ...titles: string[]) {
  const browser = new TestBrowser(ctx.app);
  const email = newOwnerEmail();
  await browser.signUp(email);
  const sites: string[] = [];
  for (const title of titles.length ? titles : ['Corner Shop']) sites.push(await browser.addSite(title));
  return { browser, email, sites };
}

/** The app's authorization request, with the parameters given replacing its own. */
export const authorizeUrl = (app: App, params: Record<string, string> = {}) =>
  `${AUTHORIZE_PATH}?${new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'website.products.read,website.inventory',
    state: 'xyz-123_~.',
    access_type: 'offline',
    ...params,
  })}`;

/** From authorize to the consent page; returns the pending request id. */
export async function openConsent(browser: TestBrowser, app: App, params: Record<string, string> = {}) {
  const start = await browser.get(authorizeUrl(app, params));
  assert.equal(start.statusCode, 303, start.body);
  const consent = String(start.headers.location);
  assert.ok(consent.startsWith(`${CONSENT_PATH}?request=`), consent);
  const page = await browser.get(consent);
  assert.equal(page.statusCode, 200, page.body);
  return new URL(consent, 'https://x').searchParams.get('request')!;
}

/** The consent page's answer, for the website its form names unless `fields` name another. */
export const answer = (
  browser: TestBrowser,
  requestId: string,
  decision: string,
  fields: Record<string, string> = {},
) => {
  const website = /name="website_id" value="([0-9a-f]{24})"/.exec(browser.lastPage)?.[1] ?? '';
  return browser.post(CONSENT_PATH, {
    csrf: browser.csrf,
    request: requestId,
    decision,
    website_id: website,
    ...fields,
  });
};
