import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AUTHORIZE_PATH, CONSENT_PATH } from '../src/admin/consent.routes.ts';
import { DEFAULT_SIGN_IN_PER_MINUTE as SIGN_IN_PER_MINUTE } from '../src/config.ts';
import { TestBrowser } from './helpers/browser.ts';
import { consentTestApp, newOwnerEmail, signedUpOwner } from './helpers/consent.ts';
import type { App } from './helpers/oauth.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * Where sign-in goes back to: the request that sent the owner there, and never a page off this
 * service (an open redirect); and the sign-in form's CSRF token and rate limit.
 */

let ctx: TestContext;
let app: App;
before(async () => {
  ({ ctx, app } = await consentTestApp());
});
after(() => ctx.close());

describe('authorize and consent (AZ)', () => {
  test('AZ-6 an anonymous user signs in and returns to the same request; the return target is internal only; sign-in is CSRF-protected and rate-limited', async () => {
    const { email } = await signedUpOwner(ctx);
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
    const { browser, email } = await signedUpOwner(ctx);
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
      email: newOwnerEmail(),
      password: 'correct horse battery',
      next: '/\t/evil.example',
    });
    assert.equal(signedUp.statusCode, 303, signedUp.body);
    assert.equal(signedUp.headers.location, '/sites');

    // A path of this service, with its query, still comes back (the consent flow depends on it).
    const pending = `${AUTHORIZE_PATH}?client_id=${app.clientId}&state=a%20b`;
    assert.equal((await browser.get(`/login?next=${encodeURIComponent(pending)}`)).headers.location, pending);
  });
});
