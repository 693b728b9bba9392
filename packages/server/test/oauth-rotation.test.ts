import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { revokeAccess } from '../src/oauth/revocation.ts';
import {
  allow,
  apiCall,
  assertOAuthError,
  grantTokens,
  oauthTestApp,
  redeem,
  refresh,
  registerApp,
  tokenRequest,
  type App,
  type Tokens,
} from './helpers/oauth.ts';
import { createProduct, digital } from './helpers/factories.ts';
import { noticed, testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let app: App;
let site: Site;
before(async () => {
  ({ ctx, app, site } = await oauthTestApp({ logLevel: 'info' }));
});
after(() => ctx.close());

const connect = async (scopes?: NonNullable<Parameters<typeof allow>[3]>['scopes']) =>
  grantTokens(ctx, app, site.websiteId, { scopes });

async function refreshed(refreshToken: string): Promise<Tokens> {
  const res = await refresh(ctx, app, refreshToken);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const status = async (accessToken: string) => (await apiCall(ctx, accessToken)).statusCode;

describe('refresh rotation (RT)', () => {
  test('RT-1 a refresh token presented by another client: invalid_grant, and it still works for its own', async () => {
    const tokens = await connect();
    const other = await registerApp(ctx);
    assertOAuthError(await refresh(ctx, other, tokens.refresh_token!), 400, 'invalid_grant');
    await refreshed(tokens.refresh_token!);
  });

  test('RT-2 a refresh token works until 7 days and is invalid_grant after', async () => {
    const early = await connect();
    const late = await connect();
    ctx.clock.advance(7 * 24 * 3600_000 - 1_000);
    await refreshed(early.refresh_token!);
    ctx.clock.advance(2_000);
    assertOAuthError(await refresh(ctx, app, late.refresh_token!), 400, 'invalid_grant');
  });

  test('RT-3 a refresh never widens the scope or changes the website', async () => {
    const tokens = await connect(['website.products.read']);
    const next = await refreshed(tokens.refresh_token!);
    assert.equal(await status(next.access_token), 200);
    const write = await apiCall(ctx, next.access_token, { method: 'POST', payload: {} });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().subtype, 'MISSING_SCOPE');
    const otherSite = await ctx.site();
    const product = await createProduct(otherSite, digital(otherSite));
    const foreign = await apiCall(ctx, next.access_token, { url: `/1.1/commerce/products/${product.id}` });
    assert.equal(foreign.statusCode, 404);
  });

  test('RT-4 before confirmation the old refresh token still works; after, it is invalid_grant', async () => {
    const rt0 = (await connect()).refresh_token!;
    await refreshed(rt0); // response lost: the app retries
    const pair = await refreshed(rt0);
    assert.equal(await status(pair.access_token), 200); // confirms
    assertOAuthError(await refresh(ctx, app, rt0), 400, 'invalid_grant');
  });

  test('RT-5 older access tokens keep working until their own expiry', async () => {
    const first = await connect();
    const second = await refreshed(first.refresh_token!);
    assert.equal(await status(second.access_token), 200);
    assert.equal(await status(first.access_token), 200);
    ctx.clock.advance(30 * 60_000 + 1_000);
    assert.equal(await status(first.access_token), 401);
  });

  test('RT-6 20 parallel first calls with the new access token all succeed and retire the old refresh token once', async () => {
    const first = await connect();
    const pair = await refreshed(first.refresh_token!);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => status(pair.access_token)));
    assert.deepEqual(new Set(statuses), new Set([200]));
    const digest = createHash('sha256').update(first.refresh_token!).digest();
    const old = await ctx.db
      .selectFrom('oauth_refresh_tokens')
      .selectAll()
      .where('token_digest', '=', digest)
      .executeTakeFirstOrThrow();
    assert.equal(old.retired_reason, 'confirmed');
    const confirmed = await ctx.db
      .selectFrom('oauth_refresh_tokens')
      .select('confirmed_at')
      .where('parent_id', '=', old.id)
      .execute();
    assert.equal(confirmed.length, 1);
    assert.ok(confirmed[0]!.confirmed_at);
  });

  test('RT-7 two refreshes before confirmation give two pairs; confirming one retires the other, with no family revocation', async () => {
    const rt0 = (await connect()).refresh_token!;
    const a = await refreshed(rt0);
    const b = await refreshed(rt0);
    assert.notEqual(a.refresh_token, b.refresh_token);
    assert.equal(await status(a.access_token), 200);
    assert.equal(await status(b.access_token), 401, 'the sibling pair is retired, access token included');
    assertOAuthError(await refresh(ctx, app, b.refresh_token!), 400, 'invalid_grant');
    assert.equal(await status(a.access_token), 200, 'a sibling replay revokes nothing');
    await refreshed(a.refresh_token!);
  });

  test('RT-8 a replay of a refresh token retired by confirmation revokes the whole family and is audited', async () => {
    const replays = () =>
      ctx.db
        .selectFrom('audit_events')
        .selectAll()
        .where('kind', '=', 'refresh_replay')
        .where('website_id', '=', site.websiteId)
        .execute();
    const before = (await replays()).length;
    const first = await connect();
    const second = await refreshed(first.refresh_token!);
    assert.equal(await status(second.access_token), 200);
    assertOAuthError(await refresh(ctx, app, first.refresh_token!), 400, 'invalid_grant');
    assert.equal(await status(second.access_token), 401);
    assert.equal(await status(first.access_token), 401);
    assertOAuthError(await refresh(ctx, app, second.refresh_token!), 400, 'invalid_grant');
    const events = await replays();
    assert.equal(events.length, before + 1, 'one event for the one replay');
    assert.ok(events.every((e) => e.client_id === app.clientId));
  });

  test('RT-9 at most 5 unconfirmed refreshes per refresh token', async () => {
    const rt0 = (await connect()).refresh_token!;
    for (let i = 0; i < 5; i++) await refreshed(rt0);
    assertOAuthError(await refresh(ctx, app, rt0), 400, 'invalid_grant', /5 refreshes/);
  });

  test('RT-10 refreshing with the new refresh token confirms its pair: the old one is then retired', async () => {
    const first = await connect();
    const second = await refreshed(first.refresh_token!);
    const third = await refreshed(second.refresh_token!);
    assert.equal(await status(third.access_token), 200);
    assertOAuthError(await refresh(ctx, app, first.refresh_token!), 400, 'invalid_grant');
  });

  test('RT-11 parallel refreshes of one token never answer 5xx', async () => {
    const rt0 = (await connect()).refresh_token!;
    const results = await Promise.all(Array.from({ length: 12 }, () => refresh(ctx, app, rt0)));
    const codes = results.map((r) => r.statusCode);
    assert.ok(
      codes.every((c) => c === 200 || c === 400),
      codes.join(','),
    );
    assert.equal(codes.filter((c) => c === 200).length, 5, 'five unconfirmed pairs at most');
  });

  test('RT-12 a refresh racing a revocation yields no usable token', async () => {
    for (let round = 0; round < 5; round++) {
      const tokens = await connect();
      const [res] = await Promise.all([
        refresh(ctx, app, tokens.refresh_token!),
        revokeAccess(ctx, { websiteId: site.websiteId, clientId: app.clientId }),
      ]);
      if (res.statusCode === 200) {
        const pair = res.json();
        assert.equal(await status(pair.access_token), 401);
        assertOAuthError(await refresh(ctx, app, pair.refresh_token), 400, 'invalid_grant');
      } else {
        assertOAuthError(res, 400, 'invalid_grant');
      }
    }
  });

  test('RT-13 refresh tokens carry 256 random bits and are stored only as digests', async () => {
    const tokens = await connect();
    const next = await refreshed(tokens.refresh_token!);
    for (const token of [tokens.refresh_token!, next.refresh_token!]) {
      assert.match(token, /^emp_rt_[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(token.slice(7), 'base64url').length, 32);
    }
    const dump = JSON.stringify([
      await ctx.db.selectFrom('oauth_refresh_tokens').selectAll().execute(),
      await ctx.db.selectFrom('oauth_access_tokens').selectAll().execute(),
    ]);
    for (const token of [
      tokens.refresh_token!,
      next.refresh_token!,
      tokens.access_token,
      next.access_token,
    ]) {
      assert.ok(!dump.includes(token.slice(7)));
    }
  });
});

describe('API requests with access tokens (RS)', () => {
  test('RS-2 unknown, expired or revoked access tokens: 401 with WWW-Authenticate: Bearer; a missing scope: 403', async () => {
    const tokens = await connect(['website.products.read']);
    const unknown = await apiCall(ctx, `emp_at_${'A'.repeat(43)}`);
    assert.equal(unknown.statusCode, 401);
    assert.match(String(unknown.headers['www-authenticate']), /^Bearer/);
    const write = await apiCall(ctx, tokens.access_token, { method: 'POST', payload: {} });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().subtype, 'MISSING_SCOPE');
    await revokeAccess(ctx, { websiteId: site.websiteId, clientId: app.clientId });
    const revoked = await apiCall(ctx, tokens.access_token);
    assert.equal(revoked.statusCode, 401);
    assert.match(String(revoked.headers['www-authenticate']), /^Bearer/);
  });

  test('RS-3 an access token is valid at 29:59 and invalid at 30:01', async () => {
    const tokens = await connect();
    ctx.clock.advance(29 * 60_000 + 59_000 - 10);
    assert.equal(await status(tokens.access_token), 200);
    ctx.clock.advance(2_000);
    assert.equal(await status(tokens.access_token), 401);
  });

  test('RS-4 a write scope implies its read scope (website isolation: RT-3)', async () => {
    const tokens = await connect(['website.products']);
    assert.equal(await status(tokens.access_token), 200);
  });

  test("RS-5 a revocation reaches another instance with the database's notice of it, cache or not", async () => {
    const tokens = await connect();
    const second = await testApp({ logLevel: 'silent', databaseUrl: ctx.url });
    try {
      assert.equal((await apiCall(second, tokens.access_token)).statusCode, 200); // now cached there
      const grant = await ctx.db
        .selectFrom('oauth_grants')
        .select('id')
        .where('client_id', '=', app.clientId)
        .where('revoked_at', 'is', null)
        .orderBy('created_at', 'desc')
        .executeTakeFirstOrThrow();
      const announced = noticed(second.changes, 'oauth_grant', grant.id);
      await revokeAccess(ctx, { websiteId: site.websiteId, clientId: app.clientId });
      await announced; // the database's notice, sent as the revocation commits
      assert.equal((await apiCall(second, tokens.access_token)).statusCode, 401);
    } finally {
      await second.close();
    }
  });

  test('RS-6 tokens, secrets and codes never appear in the logs', async () => {
    const code = await allow(ctx, app, site.websiteId);
    const tokens = await redeem(ctx, app, code);
    await status(tokens.access_token);
    await refresh(ctx, app, tokens.refresh_token!);
    await tokenRequest(ctx, { code, redirect_uri: 'x' }, { authorization: app.authorization });
    const logs = ctx.logs.join('\n');
    assert.ok(logs.includes('"request"'), 'requests are logged');
    for (const secret of [code, tokens.access_token, tokens.refresh_token!, app.clientSecret]) {
      assert.ok(!logs.includes(secret.slice(7)), 'no secret in the logs');
    }
  });
});

describe('revocation (GR)', () => {
  test('GR-1 revoking client X for website S kills its tokens and codes there, and nothing else', async () => {
    const other = await registerApp(ctx);
    const elsewhere = await ctx.site();
    const tokens = await connect();
    const pending = await allow(ctx, app, site.websiteId);
    const otherClient = await grantTokens(ctx, other, site.websiteId);
    const otherSite = await grantTokens(ctx, app, elsewhere.websiteId);

    await revokeAccess(ctx, { websiteId: site.websiteId, clientId: app.clientId });

    assert.equal(await status(tokens.access_token), 401);
    assertOAuthError(await refresh(ctx, app, tokens.refresh_token!), 400, 'invalid_grant');
    assertOAuthError(
      await tokenRequest(
        ctx,
        { code: pending, redirect_uri: 'https://app.example.com/callback' },
        { authorization: app.authorization },
      ),
      400,
      'invalid_grant',
    );
    assert.equal(await status(otherClient.access_token), 200);
    assert.equal(await status(otherSite.access_token), 200);
    await refreshed(otherSite.refresh_token!);
    const events = await ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('kind', '=', 'revocation')
      .where('website_id', '=', site.websiteId)
      .execute();
    assert.ok(events.length >= 1);
  });
});
