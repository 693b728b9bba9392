import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { redirectParams, TestBrowser } from './helpers/browser.ts';
import { answer, consentTestApp, openConsent, signedUpOwner } from './helpers/consent.ts';
import { apiCall, assertOAuthError, REDIRECT_URI, refresh, tokenRequest, type App } from './helpers/oauth.ts';
import { noticed, type TestContext } from './helpers/test-app.ts';
import { advanceClock } from '../src/testing/site-clock.ts';

/** A site's owner pages: the connected apps and their revocation, the API keys, the store pages. */

let ctx: TestContext;
let app: App;
before(async () => {
  ({ ctx, app } = await consentTestApp());
});
after(() => ctx.close());

describe('owner pages and revocation (GR)', () => {
  test("GR-1 Revoke on the connected apps page ends the app's tokens for that site", async () => {
    const { browser, sites } = await signedUpOwner(ctx);
    const code = redirectParams(await answer(browser, await openConsent(browser, app), 'allow')).get('code')!;
    const tokens = (
      await tokenRequest(ctx, { code, redirect_uri: REDIRECT_URI }, { authorization: app.authorization })
    ).json();
    const page = await browser.get(`/sites/${sites[0]}`);
    assert.match(page.body, /Label &lt;Printer&gt;/);
    assert.match(page.body, /View inventory stock levels|View and update inventory stock levels/);
    const revoke = await browser.post(`/sites/${sites[0]}/apps/${app.clientId}/revoke`, {
      csrf: browser.csrf,
    });
    assert.equal(revoke.statusCode, 303);
    assert.equal((await apiCall(ctx, tokens.access_token)).statusCode, 401);
    assertOAuthError(await refresh(ctx, app, tokens.refresh_token), 400, 'invalid_grant');
    const after = await browser.get(`/sites/${sites[0]}`);
    assert.match(after.body, /No app holds access/);
    assert.match(after.body, /An app was revoked/);
  });

  test('GR-2 revoking needs the signed-in owner of the site and the CSRF token', async () => {
    const { browser, sites } = await signedUpOwner(ctx);
    redirectParams(await answer(browser, await openConsent(browser, app), 'allow'));
    const path = `/sites/${sites[0]}/apps/${app.clientId}/revoke`;
    assert.equal((await browser.post(path, { csrf: '' })).statusCode, 403);
    const stranger = await signedUpOwner(ctx);
    await stranger.browser.get('/sites');
    assert.equal((await stranger.browser.post(path, { csrf: stranger.browser.csrf })).statusCode, 404);
    const anonymous = new TestBrowser(ctx.app);
    await anonymous.get('/login');
    assert.equal((await anonymous.post(path, { csrf: anonymous.csrf })).statusCode, 403);
    const live = await ctx.db
      .selectFrom('oauth_grants')
      .select('id')
      .where('website_id', '=', sites[0]!)
      .where('revoked_at', 'is', null)
      .execute();
    assert.equal(live.length, 1);
  });

  test('API keys: created with the chosen scopes and shown once, listed with their last use, revoked', async () => {
    const { browser, sites } = await signedUpOwner(ctx);
    await browser.get(`/sites/${sites[0]}/keys`);
    const none = await browser.post(`/sites/${sites[0]}/keys`, { csrf: browser.csrf, name: 'Sync' });
    assert.equal(none.statusCode, 400, 'at least one scope');
    const created = await ctx.app.inject({
      method: 'POST',
      url: `/sites/${sites[0]}/keys`,
      headers: { cookie: browser.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(browser.csrf)}&name=Sync&scopes=website.products.read&scopes=website.inventory`,
    });
    assert.equal(created.statusCode, 201, created.body);
    const apiKey = /emp_key_[A-Za-z0-9_-]{43}/.exec(created.body)![0];
    const headers = { authorization: `Bearer ${apiKey}`, 'user-agent': 'tests' };
    const call = () => ctx.app.inject({ method: 'GET', url: '/1.1/commerce/products', headers });
    assert.equal((await call()).statusCode, 200);
    const list = await browser.get(`/sites/${sites[0]}/keys`);
    assert.match(list.body, /Sync/);
    assert.match(list.body, /website\.products\.read, website\.inventory/);
    assert.doesNotMatch(list.body, /emp_key_/, 'the key is shown only once');
    const keyId = /\/keys\/([0-9a-f]{24})\/revoke/.exec(list.body)![1]!;
    const digest = createHash('sha256').update(apiKey).digest('hex');
    const announced = noticed(ctx.changes, 'api_key', digest);
    const revoked = await browser.post(`/sites/${sites[0]}/keys/${keyId}/revoke`, { csrf: browser.csrf });
    assert.equal(revoked.statusCode, 303);
    await announced;
    assert.equal((await call()).statusCode, 401);
  });

  test('store pages are added from the site page and seen by the API', async () => {
    const { browser, sites } = await signedUpOwner(ctx);
    await browser.get(`/sites/${sites[0]}`);
    const added = await browser.post(`/sites/${sites[0]}/pages`, { csrf: browser.csrf, title: 'Gift Cards' });
    assert.equal(added.statusCode, 303);
    const page = await browser.get(`/sites/${sites[0]}`);
    assert.match(page.body, /Gift Cards/);
    const empty = await browser.post(`/sites/${sites[0]}/pages`, { csrf: browser.csrf, title: ' ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /title: 1 to 200 characters/);
  });

  test('a site whose test clock runs ahead says so on its page, and by how much; a security event tells of the move', async () => {
    const { browser, sites } = await signedUpOwner(ctx);
    const before = await browser.get(`/sites/${sites[0]}`);
    assert.doesNotMatch(before.body, /test clock/);
    await advanceClock(ctx.api, sites[0]!, 2 * 86_400_000 + 3_600_000, 'test');
    const page = await browser.get(`/sites/${sites[0]}`);
    assert.match(page.body, /This site’s clock runs 2d 1h ahead of real time \(a test clock\)/);
    assert.match(page.body, /A test control acted on the site/);
  });
});
