import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createClient } from '../src/oauth/clients.service.ts';
import { AUTHORIZE_PATH, CONSENT_PATH } from '../src/admin/consent.routes.ts';
import { DEFAULT_SIGN_IN_PER_MINUTE as SIGN_IN_PER_MINUTE } from '../src/config.ts';
import { redirectParams, TestBrowser } from './helpers/browser.ts';
import {
  apiCall,
  assertOAuthError,
  basic,
  REDIRECT_URI,
  refresh,
  tokenRequest,
  type App,
} from './helpers/oauth.ts';
import { noticed, testApp, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let app: App;
let owners = 0;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  const developer = new TestBrowser(ctx.app);
  await developer.signUp('developer@example.com');
  const { clientId, clientSecret } = await createClient(ctx, {
    ownerEmail: 'developer@example.com',
    name: 'Label <Printer>',
    redirectUris: [REDIRECT_URI, 'https://app.example.com/callback?tenant=7'],
  });
  app = { clientId, clientSecret, authorization: basic(clientId, clientSecret) };
});
after(() => ctx.close());

/** A signed-in owner with one site (or the titles given). */
async function owner(...titles: string[]) {
  const browser = new TestBrowser(ctx.app);
  const email = `owner${++owners}@example.com`;
  await browser.signUp(email);
  const sites: string[] = [];
  for (const title of titles.length ? titles : ['Corner Shop']) sites.push(await browser.addSite(title));
  return { browser, email, sites };
}

const authorizeUrl = (params: Record<string, string> = {}) =>
  `${AUTHORIZE_PATH}?${new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'website.products.read,website.inventory',
    state: 'xyz-123_~.',
    access_type: 'offline',
    ...params,
  })}`;

/** From authorize to the consent page; returns the pending request id. */
async function openConsent(browser: TestBrowser, params: Record<string, string> = {}) {
  const start = await browser.get(authorizeUrl(params));
  assert.equal(start.statusCode, 303, start.body);
  const consent = String(start.headers.location);
  assert.ok(consent.startsWith(`${CONSENT_PATH}?request=`), consent);
  const page = await browser.get(consent);
  assert.equal(page.statusCode, 200, page.body);
  return new URL(consent, 'https://x').searchParams.get('request')!;
}

const answer = (
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
    const { email, sites } = await owner('Flow Store');
    const browser = new TestBrowser(ctx.app);
    const start = await browser.get(authorizeUrl());
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
      const res = await browser.get(authorizeUrl(params));
      assert.equal(res.statusCode, 400, JSON.stringify(params));
      assert.equal(res.headers.location, undefined);
      assert.match(String(res.headers['content-type']), /text\/html/);
    }
    const twice = await browser.get(`${authorizeUrl()}&client_id=${app.clientId}`);
    assert.equal(twice.statusCode, 400);
    assert.equal(await pendingCount(), before);
  });

  test('AZ-3 a repeated parameter is invalid_request, sent back without state', async () => {
    const { browser } = await owner();
    const params = redirectParams(await browser.get(`${authorizeUrl()}&state=other`));
    assert.equal(params.get('error'), 'invalid_request');
    assert.equal(params.get('state'), null);
    assert.equal(params.get('code'), null);
    const scope = redirectParams(await browser.get(`${authorizeUrl()}&scope=website.orders`));
    assert.equal(scope.get('error'), 'invalid_request');
    assert.equal(scope.get('state'), 'xyz-123_~.');
  });

  test('AZ-4 state missing or malformed: invalid_request; the registered redirect URI keeps its own query', async () => {
    const { browser } = await owner();
    for (const state of ['', 'has space', 'x'.repeat(501), 'é']) {
      const res = await browser.get(authorizeUrl({ state }));
      const params = redirectParams(res);
      assert.equal(params.get('error'), 'invalid_request', state);
      assert.equal(params.get('state'), null);
      assert.ok(String(res.headers.location).startsWith(`${REDIRECT_URI}?`));
    }
    const withQuery = redirectParams(
      await browser.get(
        authorizeUrl({ redirect_uri: 'https://app.example.com/callback?tenant=7', state: '' }),
      ),
    );
    assert.equal(withQuery.get('tenant'), '7');
  });

  test('AZ-5 an unknown scope or an empty item is invalid_scope; what is granted is what the page showed', async () => {
    const { browser } = await owner();
    for (const scope of ['website.products,website.everything', 'website.products,,website.orders', '']) {
      const params = redirectParams(await browser.get(authorizeUrl({ scope })));
      assert.equal(params.get('error'), 'invalid_scope', scope);
      assert.equal(params.get('state'), 'xyz-123_~.');
    }
    const requestId = await openConsent(browser, {
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

  test('AZ-6 an anonymous user signs in and returns to the same request; the return target is internal only; sign-in is CSRF-protected and rate-limited', async () => {
    const { email } = await owner();
    for (const next of [
      '//evil.example.com/x',
      'https://evil.example.com/',
      '/\\evil.example.com',
      'javascript:alert(1)',
    ]) {
      const browser = new TestBrowser(ctx.app);
      const res = await browser.signIn(email, 'correct horse battery', next);
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/sites', next);
    }
    const forged = new TestBrowser(ctx.app);
    await forged.get('/login');
    const noToken = await forged.post('/login', { email, password: 'correct horse battery', next: '/sites' });
    assert.equal(noToken.statusCode, 403);
    assert.equal(forged.cookies.size, 1, 'still the anonymous cookie only');

    const limited = await testApp({
      logLevel: 'silent',
      databaseUrl: ctx.url,
      signInPerMinute: SIGN_IN_PER_MINUTE,
    });
    try {
      const browser = new TestBrowser(limited.app);
      const statuses: number[] = [];
      for (let i = 0; i <= SIGN_IN_PER_MINUTE; i++) {
        statuses.push((await browser.signIn(email, 'wrong password')).statusCode);
      }
      assert.deepEqual(statuses.slice(0, -1), Array(SIGN_IN_PER_MINUTE).fill(401));
      assert.equal(statuses.at(-1), 429);
      await browser.get('/login');
      const csrf = browser.csrf;
      const answers: number[] = [];
      for (let i = 0; i <= SIGN_IN_PER_MINUTE; i++) {
        answers.push((await browser.post(CONSENT_PATH, { csrf, request: 'x' })).statusCode);
      }
      assert.deepEqual(answers.slice(0, -1), Array(SIGN_IN_PER_MINUTE).fill(403), 'not signed in');
      assert.equal(answers.at(-1), 429, 'consent answers are limited too (AB-1)');
    } finally {
      await limited.close();
    }
  });

  test('AZ-15 the return target after sign-in is resolved as a browser would and kept only as a path of this service', async () => {
    const { browser, email } = await owner();
    const offSite = [
      ...Array.from({ length: 32 }, (_, code) => `/${String.fromCharCode(code)}/evil.example`),
      ...Array.from({ length: 33 }, (_, code) => `${String.fromCharCode(code)}//evil.example`),
      '/\x7f/evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      '/\\/evil.example',
      '/./',
      '/.//evil.example',
      '/a/../..//evil.example',
      '///evil.example',
      'https://evil.example/sites',
      'HTTPS:evil.example',
      'javascript:alert(1)',
      '/%2F%2Fevil.example',
      '%2F%2Fevil.example',
      '/%5Cevil.example',
      '/%09/evil.example',
    ];
    // What a browser does with a Location: resolves it against the page's address.
    const here = 'https://shop.example.com';
    const lands = (location: string) => new URL(location, `${here}/login`);
    const locations = new Set<string>();
    for (const next of offSite) {
      const res = await browser.get(`/login?next=${encodeURIComponent(next)}`);
      if (next.includes('\0')) {
        // Text with a NUL is refused before any page sees it (http/request-text.ts).
        assert.equal(res.statusCode, 400);
        continue;
      }
      assert.equal(res.statusCode, 303, JSON.stringify(next));
      const location = String(res.headers.location);
      assert.ok(![...location].some((c) => c <= ' ' || c === '\x7f' || c === '\\'), JSON.stringify(next));
      assert.equal(lands(location).origin, here, JSON.stringify(next));
      assert.ok(!location.startsWith('//'), JSON.stringify(next));
      locations.add(location);
    }
    // Those that lead off-site as written go nowhere but the sites page.
    for (const next of ['/\t/evil.example', '/\n/evil.example', '/\r/evil.example', '/.//evil.example']) {
      assert.equal((await browser.get(`/login?next=${encodeURIComponent(next)}`)).headers.location, '/sites');
    }
    assert.ok(locations.has('/sites'));

    // The posted forms decide the same way.
    const anonymous = new TestBrowser(ctx.app);
    const signedIn = await anonymous.signIn(email, 'correct horse battery', '/\t/evil.example');
    assert.equal(signedIn.headers.location, '/sites');
    const newcomer = new TestBrowser(ctx.app);
    await newcomer.get('/signup');
    const signedUp = await newcomer.post('/signup', {
      csrf: newcomer.csrf,
      email: `owner${++owners}@example.com`,
      password: 'correct horse battery',
      next: '/\t/evil.example',
    });
    assert.equal(signedUp.statusCode, 303, signedUp.body);
    assert.equal(signedUp.headers.location, '/sites');

    // A path of this service, with its query, still comes back (the consent flow depends on it).
    const pending = `${AUTHORIZE_PATH}?client_id=${app.clientId}&state=a%20b`;
    assert.equal((await browser.get(`/login?next=${encodeURIComponent(pending)}`)).headers.location, pending);
  });

  test('AZ-7 the consent page cannot be framed, is not cached, sends no referrer and loads nothing from another origin', async () => {
    const { browser } = await owner();
    const start = await browser.get(authorizeUrl());
    const res = await browser.get(String(start.headers.location));
    assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.doesNotMatch(res.body, /(src|href|action)="(https?:)?\/\//);
    assert.doesNotMatch(res.body, /<script/);
  });

  test("AZ-8 a consent post without the CSRF token, with another session's, or for another owner's request: 403, no code", async () => {
    const { browser } = await owner();
    const requestId = await openConsent(browser);
    const website = /name="website_id" value="([0-9a-f]{24})"/.exec(browser.lastPage)![1]!;
    const other = await owner();
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
    const { browser } = await owner();
    const other = await owner();
    const requestId = await openConsent(browser);
    const res = await answer(browser, requestId, 'allow', { website_id: other.sites[0]! });
    assert.equal(res.statusCode, 403);
    const start = await browser.get(authorizeUrl({ website_id: other.sites[0]! }));
    const foreign = await browser.get(String(start.headers.location));
    assert.equal(foreign.statusCode, 403, 'a website_id of another owner shows no consent form');
    assert.doesNotMatch(foreign.body, /name="decision"/);
  });

  test('AZ-10 client, redirect URI, scopes, state and offline flag come from the server-side record', async () => {
    const { browser } = await owner();
    const requestId = await openConsent(browser);
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
    const { browser } = await owner();
    const requestId = await openConsent(browser);
    const csrf = browser.csrf;
    const website = /name="website_id" value="([0-9a-f]{24})"/.exec(browser.lastPage)![1]!;
    const form = { csrf, request: requestId, decision: 'allow', website_id: website };
    const [first, second] = await Promise.all([
      browser.post(CONSENT_PATH, form),
      browser.post(CONSENT_PATH, form),
    ]);
    assert.deepEqual([first.statusCode, second.statusCode].sort(), [303, 400]);
    const late = await openConsent(browser);
    ctx.clock.advance(10 * 60_000 + 1_000);
    assert.equal((await answer(browser, late, 'allow')).statusCode, 400);
  });

  test('AZ-12 Allow: 303 with code and state; Deny: 303 with error=access_denied only', async () => {
    const { browser } = await owner();
    const allowed = redirectParams(await answer(browser, await openConsent(browser), 'allow'));
    assert.deepEqual([...allowed.keys()].sort(), ['code', 'state']);
    assert.match(allowed.get('code')!, /^[A-Za-z0-9]{32,}$/);
    const denied = await answer(browser, await openConsent(browser), 'deny');
    assert.equal(denied.statusCode, 303);
    assert.equal(denied.headers.location, `${REDIRECT_URI}?error=access_denied`);
  });

  test('AZ-13 the page shows the app, the redirect host, every scope in words and the website to choose', async () => {
    const { browser, sites } = await owner('First Shop', 'Second <Shop>');
    await openConsent(browser);
    assert.match(browser.lastPage, /Label &lt;Printer&gt;/, 'the name, escaped');
    assert.match(browser.lastPage, /app\.example\.com/);
    assert.match(browser.lastPage, /View product information/);
    assert.match(browser.lastPage, /View and update inventory stock levels/);
    assert.match(browser.lastPage, /First Shop/);
    assert.match(browser.lastPage, /Second &lt;Shop&gt;/);
    await openConsent(browser, { website_id: sites[1]! });
    assert.doesNotMatch(browser.lastPage, /First Shop/, 'website_id: that site only');
    assert.match(browser.lastPage, /Second &lt;Shop&gt;/);
  });

  test('AZ-14 PKCE: only S256', async () => {
    const { browser } = await owner();
    const verifier = 'dBjftJeZ4CVP-mJ92K9qtjOtUgxUCGklqJ6THemvMSFE';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const refused: Record<string, string>[] = [
      { code_challenge: challenge, code_challenge_method: 'plain' },
      { code_challenge: challenge },
      { code_challenge_method: 'S256' },
      { code_challenge: 'short', code_challenge_method: 'S256' },
    ];
    for (const params of refused) {
      assert.equal(redirectParams(await browser.get(authorizeUrl(params))).get('error'), 'invalid_request');
    }
    const requestId = await openConsent(browser, {
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

describe('owner pages and revocation (GR)', () => {
  test("GR-1 Revoke on the connected apps page ends the app's tokens for that site", async () => {
    const { browser, sites } = await owner();
    const code = redirectParams(await answer(browser, await openConsent(browser), 'allow')).get('code')!;
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
    const { browser, sites } = await owner();
    redirectParams(await answer(browser, await openConsent(browser), 'allow'));
    const path = `/sites/${sites[0]}/apps/${app.clientId}/revoke`;
    assert.equal((await browser.post(path, { csrf: '' })).statusCode, 403);
    const stranger = await owner();
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

  test('GR-3 sessions: HttpOnly, SameSite=Lax, Secure over https, a new id at sign-in, sign-out ends it', async () => {
    const { email } = await owner();
    const browser = new TestBrowser(ctx.app);
    const first = await browser.get('/login');
    const cookie = String(first.headers['set-cookie']);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Secure/);
    const anonymous = browser.cookies.get('emporium_session');
    await browser.post('/login', {
      csrf: browser.csrf,
      email,
      password: 'correct horse battery',
      next: '/sites',
    });
    const signedIn = browser.cookies.get('emporium_session');
    assert.notEqual(signedIn, anonymous);
    assert.equal((await browser.get('/sites')).statusCode, 200);
    assert.equal((await browser.post('/logout', { csrf: browser.csrf })).statusCode, 303);
    const replay = await ctx.app.inject({
      method: 'GET',
      url: '/sites',
      headers: { cookie: `emporium_session=${signedIn}` },
    });
    assert.equal(replay.statusCode, 303, 'the old session no longer signs in');
    assert.match(String(replay.headers.location), /^\/login/);
  });

  test('GR-4 passwords are hashed with scrypt; an unknown email and a wrong password answer the same', async () => {
    const { email } = await owner();
    const row = await ctx.db
      .selectFrom('owners')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^scrypt\$/);
    const wrong = await new TestBrowser(ctx.app).signIn(email, 'not the password');
    const unknown = await new TestBrowser(ctx.app).signIn('nobody@example.com', 'not the password');
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    const message = (body: string) => /role="alert">([^<]+)</.exec(body)?.[1];
    assert.equal(message(wrong.body), message(unknown.body));
    const failed = await ctx.db
      .selectFrom('audit_events')
      .select('kind')
      .where('kind', '=', 'login_failed')
      .execute();
    assert.ok(failed.length >= 2, 'failed sign-ins are audited');
    const browser = new TestBrowser(ctx.app);
    await browser.signIn(email);
    const sites = await browser.get('/sites');
    assert.match(sites.body, /Recent sign-ins to your account/);
    assert.match(sites.body, /A sign-in failed/, 'the owner sees the failed attempt on their account');
  });

  test('API keys: created with the chosen scopes and shown once, listed with their last use, revoked', async () => {
    const { browser, sites } = await owner();
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
    const { browser, sites } = await owner();
    await browser.get(`/sites/${sites[0]}`);
    const added = await browser.post(`/sites/${sites[0]}/pages`, { csrf: browser.csrf, title: 'Gift Cards' });
    assert.equal(added.statusCode, 303);
    const page = await browser.get(`/sites/${sites[0]}`);
    assert.match(page.body, /Gift Cards/);
    const empty = await browser.post(`/sites/${sites[0]}/pages`, { csrf: browser.csrf, title: ' ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /title: 1 to 200 characters/);
  });
});
