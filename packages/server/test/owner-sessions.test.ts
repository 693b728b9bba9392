import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestBrowser } from './helpers/browser.ts';
import { signedUpOwner } from './helpers/consent.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** The owner's session cookie and password: how they are kept, and what a wrong one is told. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

describe('owner pages and revocation (GR)', () => {
  test('GR-3 sessions: HttpOnly, SameSite=Lax, Secure over https, a new id at sign-in, sign-out ends it', async () => {
    const { email } = await signedUpOwner(ctx);
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
    const { email } = await signedUpOwner(ctx);
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
});
