import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CONSENT_PATH } from '../src/admin/consent.routes.ts';
import { redirectParams, TestBrowser } from './helpers/browser.ts';
import { answer, authorizeUrl, consentTestApp, openConsent, signedUpOwner } from './helpers/consent.ts';
import { apiCall, REDIRECT_URI, tokenRequest, type App } from './helpers/oauth.ts';
import type { TestContext } from './helpers/test-app.ts';

/** An app's authorization request and the owner's consent page: the flow's rules, one by one. */

let ctx: TestContext;
let app: App;
before(async () => {
  ({ ctx, app } = await consentTestApp());
});
after(() => ctx.close());

const pendingCount = async () =>
  Number(
    (
      await ctx.db
        .selectFrom('oauth_authorization_requests')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('the whole flow', () => {
  test('authorize, sign in, Allow, code for tokens, and the API answers with the access token', async () => {
    const { email, sites } = await signedUpOwner(ctx, 'Flow Store');
    const browser = new TestBrowser(ctx.app);
    const start = await browser.get(authorizeUrl(app));
    const login = String(start.headers.location);
    assert.match(login, /^\/login\?next=/);
    await browser.get(login);
    const signedIn = await browser.post('/login', {
      csrf: browser.csrf,
      email,
      password: 'correct horse battery',
      next: new URL(login, 'https://x').searchParams.get('next')!,
    });
    assert.match(
      String(signedIn.headers.location),
      new RegExp(`^${CONSENT_PATH.replace(/\//g, '\\/')}\\?request=`),
    );
    const page = await browser.get(String(signedIn.headers.location));
    assert.equal(page.statusCode, 200);
    const requestId = new URL(String(signedIn.headers.location), 'https://x').searchParams.get('request')!;
    const params = redirectParams(await answer(browser, requestId, 'allow'));
    assert.equal(params.get('state'), 'xyz-123_~.');
    const tokens = await tokenRequest(
      ctx,
      { code: params.get('code')!, redirect_uri: REDIRECT_URI },
      { authorization: app.authorization },
    );
    assert.equal(tokens.statusCode, 200, tokens.body);
    const res = await apiCall(ctx, tokens.json().access_token, { url: '/1.0/authorization/website' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().id, sites[0]);
  });
});

describe('authorize and consent (AZ)', () => {
  test('AZ-1 an unknown client or a redirect URI not byte-equal to a registered one: an HTML error page, no Location, nothing stored', async () => {
    const browser = new TestBrowser(ctx.app);
    const before = await pendingCount();
    const variants: Record<string, string>[] = [
      { client_id: '0'.repeat(24) },
      { client_id: 'not-an-id' },
      { redirect_uri: `${REDIRECT_URI}/` },
      { redirect_uri: `${REDIRECT_URI}?x=1` },
      { redirect_uri: REDIRECT_URI.toUpperCase() },
      { redirect_uri: 'https://app.example.com:444/callback' },
      { redirect_uri: 'https://user@app.example.com/callback' },
      { redirect_uri: `${REDIRECT_URI}#frag` },
      { redirect_uri: REDIRECT_URI.replace('https', 'http') },
      { redirect_uri: '' },
    ];
    for (const params of variants) {
      const res = await browser.get(authorizeUrl(app, params));
      assert.equal(res.statusCode, 400, JSON.stringify(params));
      assert.equal(res.headers.location, undefined);
      assert.match(String(res.headers['content-type']), /text\/html/);
    }
    const twice = await browser.get(`${authorizeUrl(app)}&client_id=${app.clientId}`);
    assert.equal(twice.statusCode, 400);
    assert.equal(await pendingCount(), before);
  });

  test('AZ-3 a repeated parameter is invalid_request, sent back without state', async () => {
    const { browser } = await signedUpOwner(ctx);
    const params = redirectParams(await browser.get(`${authorizeUrl(app)}&state=other`));
    assert.equal(params.get('error'), 'invalid_request');
    assert.equal(params.get('state'), null);
    assert.equal(params.get('code'), null);
    const scope = redirectParams(await browser.get(`${authorizeUrl(app)}&scope=website.orders`));
    assert.equal(scope.get('error'), 'invalid_request');
    assert.equal(scope.get('state'), 'xyz-123_~.');
  });

  test('AZ-4 state missing or malformed: invalid_request; the registered redirect URI keeps its own query', async () => {
    const { browser } = await signedUpOwner(ctx);
    for (const state of ['', 'has space', 'x'.repeat(501), 'é']) {
      const res = await browser.get(authorizeUrl(app, { state }));
      const params = redirectParams(res);
      assert.equal(params.get('error'), 'invalid_request', state);
      assert.equal(params.get('state'), null);
      assert.ok(String(res.headers.location).startsWith(`${REDIRECT_URI}?`));
    }
    const withQuery = redirectParams(
      await browser.get(
        authorizeUrl(app, { redirect_uri: 'https://app.example.com/callback?tenant=7', state: '' }),
      ),
    );
    assert.equal(withQuery.get('tenant'), '7');
  });

  test('AZ-5 an unknown scope or an empty item is invalid_scope; what is granted is what the page showed', async () => {
    const { browser } = await signedUpOwner(ctx);
    for (const scope of ['website.products,website.everything', 'website.products,,website.orders', '']) {
      const params = redirectParams(await browser.get(authorizeUrl(app, { scope })));
      assert.equal(params.get('error'), 'invalid_scope', scope);
      assert.equal(params.get('state'), 'xyz-123_~.');
    }
    const requestId = await openConsent(browser, app, {
      scope: ' website.products , website.products.read,website.products ',
    });
    assert.match(browser.lastPage, /View product information and modify products/);
    assert.match(browser.lastPage, /<li>View product information<\/li>/);
    const code = redirectParams(await answer(browser, requestId, 'allow')).get('code')!;
    const grant = await ctx.db
      .selectFrom('oauth_grants')
      .select('scopes')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(grant.scopes, ['website.products', 'website.products.read']);
    assert.ok(code);
  });

  test('AZ-7 the consent page cannot be framed, is not cached, sends no referrer and loads nothing from another origin', async () => {
    const { browser } = await signedUpOwner(ctx);
    const start = await browser.get(authorizeUrl(app));
    const res = await browser.get(String(start.headers.location));
    assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.doesNotMatch(res.body, /(src|href|action)="(https?:)?\/\//);
    assert.doesNotMatch(res.body, /<script/);
  });

  test("AZ-8 a consent post without the CSRF token, with another session's, or for another owner's request: 403, no code", async () => {
    const { browser } = await signedUpOwner(ctx);
    const requestId = await openConsent(browser, app);
    const website = /name="website_id" value="([0-9a-f]{24})"/.exec(browser.lastPage)![1]!;
    const other = await signedUpOwner(ctx);
    const otherCsrf = (await other.browser.get('/sites')) && other.browser.csrf;
    const grantsBefore = await ctx.db.selectFrom('oauth_grants').select('id').execute();
    for (const csrf of ['', otherCsrf, `${browser.csrf}x`]) {
      const res = await browser.post(CONSENT_PATH, {
        csrf,
        request: requestId,
        decision: 'allow',
        website_id: website,
      });
      assert.equal(res.statusCode, 403, csrf);
    }
    const stolen = await other.browser.post(CONSENT_PATH, {
      csrf: other.browser.csrf,
      request: requestId,
      decision: 'allow',
      website_id: other.sites[0]!,
    });
    assert.equal(stolen.statusCode, 403);
    assert.equal(
      (await ctx.db.selectFrom('oauth_grants').select('id').execute()).length,
      grantsBefore.length,
    );
    await browser.get(`${CONSENT_PATH}?request=${requestId}`);
    assert.ok(
      redirectParams(await answer(browser, requestId, 'allow')).get('code'),
      'the request still works for its owner',
    );
  });

  test('AZ-9 a consent post naming a website the user does not own: 403, no code', async () => {
    const { browser } = await signedUpOwner(ctx);
    const other = await signedUpOwner(ctx);
    const requestId = await openConsent(browser, app);
    const res = await answer(browser, requestId, 'allow', { website_id: other.sites[0]! });
    assert.equal(res.statusCode, 403);
    const start = await browser.get(authorizeUrl(app, { website_id: other.sites[0]! }));
    const foreign = await browser.get(String(start.headers.location));
    assert.equal(foreign.statusCode, 403, 'a website_id of another owner shows no consent form');
    assert.doesNotMatch(foreign.body, /name="decision"/);
  });

  test('AZ-10 client, redirect URI, scopes, state and offline flag come from the server-side record', async () => {
    const { browser } = await signedUpOwner(ctx);
    const requestId = await openConsent(browser, app);
    const params = redirectParams(
      await answer(browser, requestId, 'allow', {
        scope: 'website.orders',
        redirect_uri: 'https://evil.example.com/',
        state: 'tampered',
        client_id: '0'.repeat(24),
        access_type: '',
      }),
    );
    assert.equal(params.get('state'), 'xyz-123_~.');
    const grant = await ctx.db
      .selectFrom('oauth_grants')
      .selectAll()
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(grant.scopes, ['website.products.read', 'website.inventory']);
    assert.equal(grant.redirect_uri, REDIRECT_URI);
    assert.equal(grant.client_id, app.clientId);
    assert.equal(grant.offline, true);
  });

  test('AZ-11 the pending request is single use and short-lived: a double Allow yields one code', async () => {
    const { browser } = await signedUpOwner(ctx);
    const requestId = await openConsent(browser, app);
    const csrf = browser.csrf;
    const website = /name="website_id" value="([0-9a-f]{24})"/.exec(browser.lastPage)![1]!;
    const form = { csrf, request: requestId, decision: 'allow', website_id: website };
    const [first, second] = await Promise.all([
      browser.post(CONSENT_PATH, form),
      browser.post(CONSENT_PATH, form),
    ]);
    assert.deepEqual([first.statusCode, second.statusCode].sort(), [303, 400]);
    const late = await openConsent(browser, app);
    ctx.clock.advance(10 * 60_000 + 1_000);
    assert.equal((await answer(browser, late, 'allow')).statusCode, 400);
  });

  test('AZ-12 Allow: 303 with code and state; Deny: 303 with error=access_denied only', async () => {
    const { browser } = await signedUpOwner(ctx);
    const allowed = redirectParams(await answer(browser, await openConsent(browser, app), 'allow'));
    assert.deepEqual([...allowed.keys()].sort(), ['code', 'state']);
    assert.match(allowed.get('code')!, /^[A-Za-z0-9]{32,}$/);
    const denied = await answer(browser, await openConsent(browser, app), 'deny');
    assert.equal(denied.statusCode, 303);
    assert.equal(denied.headers.location, `${REDIRECT_URI}?error=access_denied`);
  });

  test('AZ-13 the page shows the app, the redirect host, every scope in words and the website to choose', async () => {
    const { browser, sites } = await signedUpOwner(ctx, 'First Shop', 'Second <Shop>');
    await openConsent(browser, app);
    assert.match(browser.lastPage, /Label &lt;Printer&gt;/, 'the name, escaped');
    assert.match(browser.lastPage, /app\.example\.com/);
    assert.match(browser.lastPage, /View product information/);
    assert.match(browser.lastPage, /View and update inventory stock levels/);
    assert.match(browser.lastPage, /First Shop/);
    assert.match(browser.lastPage, /Second &lt;Shop&gt;/);
    await openConsent(browser, app, { website_id: sites[1]! });
    assert.doesNotMatch(browser.lastPage, /First Shop/, 'website_id: that site only');
    assert.match(browser.lastPage, /Second &lt;Shop&gt;/);
  });

  test('AZ-14 PKCE: only S256', async () => {
    const { browser } = await signedUpOwner(ctx);
    const verifier = 'dBjftJeZ4CVP-mJ92K9qtjOtUgxUCGklqJ6THemvMSFE';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const refused: Record<string, string>[] = [
      { code_challenge: challenge, code_challenge_method: 'plain' },
      { code_challenge: challenge },
      { code_challenge_method: 'S256' },
      { code_challenge: 'short', code_challenge_method: 'S256' },
    ];
    for (const params of refused) {
      assert.equal(
        redirectParams(await browser.get(authorizeUrl(app, params))).get('error'),
        'invalid_request',
      );
    }
    const requestId = await openConsent(browser, app, {
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = redirectParams(await answer(browser, requestId, 'allow')).get('code')!;
    const body = {
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: 'dBjftJeZ4CVP-mJ92K9qtjOtUgxUCGklqJ6THemvMSFE',
    };
    const exchanged = await tokenRequest(ctx, body, { authorization: app.authorization });
    assert.equal(exchanged.statusCode, 200, exchanged.body);
  });
});
