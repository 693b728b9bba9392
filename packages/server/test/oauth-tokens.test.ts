import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { revokeAccess } from '../src/oauth/revocation.ts';
import {
  allow,
  apiCall,
  assertOAuthError,
  basic,
  grantTokens,
  oauthTestApp,
  redeem,
  REDIRECT_URI,
  refresh,
  registerApp,
  tokenRequest,
  type App,
} from './helpers/oauth.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let app: App;
let site: Site;
before(async () => {
  ({ ctx, app, site } = await oauthTestApp());
});
after(() => ctx.close());

const codeBody = (code: string) => ({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });

describe('token endpoint (TE)', () => {
  test('TE-6 no User-Agent: 400 naming SEC-43, checked before the client and the body', async () => {
    for (const userAgent of [null, '', '  ']) {
      const res = await tokenRequest(ctx, 'not json', { userAgent });
      assertOAuthError(res, 400, 'invalid_request', /User-Agent header is required \(SEC-43\)/);
    }
  });

  test('TE-1 client credentials only in Authorization: Basic; none, Bearer or in the body: 401 invalid_client', async () => {
    const code = await allow(ctx, app, site.websiteId);
    for (const authorization of [undefined, `Bearer ${app.clientSecret}`, 'Basic', 'Digest abc']) {
      const res = await tokenRequest(
        ctx,
        { ...codeBody(code), client_id: app.clientId, client_secret: app.clientSecret },
        { authorization },
      );
      assertOAuthError(res, 401, 'invalid_client');
      assert.match(String(res.headers['www-authenticate']), /^Basic/);
    }
    await redeem(ctx, app, code); // none of the refused attempts burned the code
  });

  test('TE-2 an unknown client and a wrong secret answer identically, with WWW-Authenticate: Basic', async () => {
    const unknown = await tokenRequest(ctx, codeBody('x'), {
      authorization: basic('0'.repeat(24), app.clientSecret),
    });
    const wrong = await tokenRequest(ctx, codeBody('x'), {
      authorization: basic(app.clientId, `${app.clientSecret}x`),
    });
    assertOAuthError(unknown, 401, 'invalid_client');
    assert.equal(unknown.body, wrong.body);
    assert.equal(unknown.headers['www-authenticate'], wrong.headers['www-authenticate']);
    assert.equal(wrong.headers['www-authenticate'], 'Basic realm="emporium"');
  });

  test('TE-3 Basic is decoded as RFC 6749 2.3.1 says; bad base64 or no colon: 401, no crash', async () => {
    const encoded = [...app.clientSecret]
      .map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
      .join('');
    const code = await allow(ctx, app, site.websiteId);
    const ok = await tokenRequest(ctx, codeBody(code), { authorization: basic(app.clientId, encoded) });
    assert.equal(ok.statusCode, 200, ok.body);
    const noColon = `Basic ${Buffer.from(app.clientId + app.clientSecret).toString('base64')}`;
    for (const authorization of ['Basic !!!notbase64', noColon, basic(app.clientId, '%E0%A4%A'), 'Basic ']) {
      assertOAuthError(await tokenRequest(ctx, codeBody('x'), { authorization }), 401, 'invalid_client');
    }
  });

  test('TE-4 secrets are compared as fixed-length digests: a secret of any length is just wrong', async () => {
    for (const secret of ['', 'x', 'y'.repeat(5000)]) {
      assertOAuthError(
        await tokenRequest(ctx, codeBody('x'), { authorization: basic(app.clientId, secret) }),
        401,
        'invalid_client',
      );
    }
  });

  test('TE-5 JSON and form bodies behave the same; other types, non-strings, repeated keys and huge bodies: invalid_request', async () => {
    const form = await tokenRequest(ctx, codeBody(await allow(ctx, app, site.websiteId)), {
      authorization: app.authorization,
      form: true,
    });
    assert.equal(form.statusCode, 200, form.body);
    assert.deepEqual(
      Object.keys(form.json()).sort(),
      Object.keys(await grantTokens(ctx, app, site.websiteId)).sort(),
    );
    const auth = { authorization: app.authorization };
    const cases: [string | Record<string, unknown>, object][] = [
      ['grant_type=authorization_code', { ...auth, contentType: 'text/plain' }],
      [{ ...codeBody('x'), code: 12345 }, auth],
      [{ ...codeBody('x'), code: ['a'] }, auth],
      ['{"code":"a","code":"b","redirect_uri":"x"}', auth],
      ['code=a&code=b&redirect_uri=x', { ...auth, form: true }],
      ['[1,2]', auth],
      ['{"code":', auth],
      [JSON.stringify({ ...codeBody('x'), padding: 'x'.repeat(20_000) }), auth],
    ];
    for (const [body, options] of cases) {
      assertOAuthError(await tokenRequest(ctx, body, options), 400, 'invalid_request');
    }
  });

  test('TE-7 success: no-store, the exact fields, token equal to access_token, expiries at issue + 1800 s and + 7 days', async () => {
    const code = await allow(ctx, app, site.websiteId);
    const before = ctx.clock.now().getTime();
    const res = await tokenRequest(ctx, codeBody(code), { authorization: app.authorization });
    const afterMs = ctx.clock.now().getTime();
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'access_token',
      'access_token_expires_at',
      'expires_in',
      'refresh_token',
      'refresh_token_expires_at',
      'token',
      'token_type',
    ]);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.token, body.access_token);
    assert.equal(body.expires_in, 1800);
    assert.match(body.access_token_expires_at, /^\d{10}\.\d{3}$/);
    assert.match(body.refresh_token_expires_at, /^\d{10}\.\d{3}$/);
    const accessMs = Math.round(Number(body.access_token_expires_at) * 1000);
    const refreshMs = Math.round(Number(body.refresh_token_expires_at) * 1000);
    assert.ok(accessMs > before + 1800_000 && accessMs < afterMs + 1800_000);
    assert.equal(refreshMs - accessMs, 7 * 24 * 3600_000 - 1800_000, 'both from the same issue time');
    assert.match(body.access_token, /^emp_at_[A-Za-z0-9_-]{43}$/);
    assert.match(body.refresh_token, /^emp_rt_[A-Za-z0-9_-]{43}$/);
  });

  test('TE-8 other grant types: unsupported_grant_type; grant_type defaults to authorization_code', async () => {
    for (const grant_type of ['password', 'client_credentials', 'toString', '']) {
      assertOAuthError(
        await tokenRequest(ctx, { grant_type }, { authorization: app.authorization }),
        400,
        'unsupported_grant_type',
      );
    }
    const code = await allow(ctx, app, site.websiteId);
    const res = await tokenRequest(
      ctx,
      { code, redirect_uri: REDIRECT_URI },
      { authorization: app.authorization },
    );
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('codes (AC)', () => {
  test('AC-1 codes are 48 alphanumeric characters (192 random bits), stored only as a digest', async () => {
    const code = await allow(ctx, app, site.websiteId);
    assert.match(code, /^[0-9a-f]{48}$/);
    const rows = await ctx.db.selectFrom('oauth_grants').selectAll().execute();
    assert.ok(!JSON.stringify(rows).includes(code));
    const digest = createHash('sha256').update(code).digest();
    assert.ok(rows.some((r) => r.code_digest.equals(digest)));
  });

  test('AC-2 a code redeemed at 119 s works; at 121 s it is invalid_grant', async () => {
    const early = await allow(ctx, app, site.websiteId);
    const late = await allow(ctx, app, site.websiteId);
    ctx.clock.advance(119_000);
    await redeem(ctx, app, early);
    ctx.clock.advance(2_000);
    assertOAuthError(
      await tokenRequest(ctx, codeBody(late), { authorization: app.authorization }),
      400,
      'invalid_grant',
    );
  });

  test('AC-3 a second redemption fails and revokes the tokens of the first, with an audit event', async () => {
    const code = await allow(ctx, app, site.websiteId);
    const tokens = await redeem(ctx, app, code);
    assert.equal((await apiCall(ctx, tokens.access_token)).statusCode, 200);
    assertOAuthError(
      await tokenRequest(ctx, codeBody(code), { authorization: app.authorization }),
      400,
      'invalid_grant',
    );
    assert.equal((await apiCall(ctx, tokens.access_token)).statusCode, 401);
    assertOAuthError(await refresh(ctx, app, tokens.refresh_token!), 400, 'invalid_grant');
    const events = await ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('kind', '=', 'code_replay')
      .where('client_id', '=', app.clientId)
      .execute();
    assert.equal(events.length, 1);
    assert.equal(events[0]!.website_id, site.websiteId);
  });

  test('AC-4 two parallel redemptions of one code: exactly one succeeds', async () => {
    for (let round = 0; round < 5; round++) {
      const code = await allow(ctx, app, site.websiteId);
      const results = await Promise.all(
        Array.from({ length: 2 }, () =>
          tokenRequest(ctx, codeBody(code), { authorization: app.authorization }),
        ),
      );
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 400]);
    }
  });

  test('AC-5 a code presented by another client fails and is burned', async () => {
    const other = await registerApp(ctx);
    const code = await allow(ctx, app, site.websiteId);
    assertOAuthError(
      await tokenRequest(ctx, codeBody(code), { authorization: other.authorization }),
      400,
      'invalid_grant',
    );
    assertOAuthError(
      await tokenRequest(ctx, codeBody(code), { authorization: app.authorization }),
      400,
      'invalid_grant',
    );
  });

  test('AC-6 the redirect_uri must equal the one of the authorize request', async () => {
    for (const redirect_uri of [`${REDIRECT_URI}/`, 'https://app.example.com/other', undefined]) {
      const code = await allow(ctx, app, site.websiteId);
      const res = await tokenRequest(ctx, { code, redirect_uri }, { authorization: app.authorization });
      assertOAuthError(res, 400, redirect_uri === undefined ? 'invalid_request' : 'invalid_grant');
    }
  });

  test('AC-7 without access_type=offline there are no refresh fields', async () => {
    const tokens = await grantTokens(ctx, app, site.websiteId, { offline: false });
    assert.deepEqual(Object.keys(tokens).sort(), [
      'access_token',
      'access_token_expires_at',
      'expires_in',
      'token',
      'token_type',
    ]);
    assert.equal((await apiCall(ctx, tokens.access_token)).statusCode, 200);
  });

  test('AC-8 a code issued before the owner revoked the client cannot be redeemed after', async () => {
    const code = await allow(ctx, app, site.websiteId);
    await revokeAccess(ctx, { websiteId: site.websiteId, clientId: app.clientId });
    assertOAuthError(
      await tokenRequest(ctx, codeBody(code), { authorization: app.authorization }),
      400,
      'invalid_grant',
    );
  });
});

describe('PKCE at the token endpoint', () => {
  const verifier = 'dBjftJeZ4CVP-mJ92K9qtjOtUgxUCGklqJ6THemvMSFE';
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  test('AZ-14 a code issued with an S256 challenge needs the right verifier; a verifier without a challenge fails', async () => {
    const code = await allow(ctx, app, site.websiteId, { codeChallenge: challenge });
    const ok = await tokenRequest(
      ctx,
      { ...codeBody(code), code_verifier: verifier },
      { authorization: app.authorization },
    );
    assert.equal(ok.statusCode, 200, ok.body);
    for (const code_verifier of [undefined, `${verifier}x`]) {
      const again = await allow(ctx, app, site.websiteId, { codeChallenge: challenge });
      const res = await tokenRequest(
        ctx,
        { ...codeBody(again), code_verifier },
        { authorization: app.authorization },
      );
      assertOAuthError(res, 400, 'invalid_grant', /code_verifier/);
    }
    const plain = await allow(ctx, app, site.websiteId);
    const res = await tokenRequest(
      ctx,
      { ...codeBody(plain), code_verifier: verifier },
      { authorization: app.authorization },
    );
    assertOAuthError(res, 400, 'invalid_grant', /code_challenge/);
  });
});

describe('token endpoint rate limit', () => {
  test('AB-1 the token endpoint answers 429 with Retry-After before it verifies any secret, counting by the connecting address', async () => {
    const limited = await testApp({ logLevel: 'silent', rateLimitPerMinute: 3, databaseUrl: ctx.url });
    try {
      const wrong = basic(app.clientId, 'wrong');
      for (let i = 0; i < 3; i++) {
        assertOAuthError(
          await tokenRequest(limited, codeBody('x'), {
            authorization: wrong,
            headers: { 'x-forwarded-for': `203.0.113.${i}` }, // not a trusted proxy: ignored
          }),
          401,
          'invalid_client',
        );
      }
      const res = await tokenRequest(limited, codeBody('x'), { authorization: app.authorization });
      assertOAuthError(res, 429, 'temporarily_unavailable');
      assert.match(String(res.headers['retry-after']), /^\d+$/);
    } finally {
      await limited.close();
    }
  });
});

test('the first call with a refreshed token, which confirms its pair, records the grant’s last use', async () => {
  const other = await ctx.site();
  const first = await grantTokens(ctx, app, other.websiteId);
  ctx.clock.advance(5 * 60_000);
  const second = (await refresh(ctx, app, first.refresh_token!)).json();
  ctx.clock.advance(5 * 60_000);
  const calledAt = ctx.clock.now().getTime();
  assert.equal((await apiCall(ctx, second.access_token)).statusCode, 200);
  const grant = await ctx.db
    .selectFrom('oauth_grants')
    .select('last_used_at')
    .where('website_id', '=', other.websiteId)
    .executeTakeFirstOrThrow();
  const lastUsed = grant.last_used_at?.getTime() ?? 0;
  assert.ok(
    lastUsed >= calledAt && lastUsed < calledAt + 1000,
    `last used ${lastUsed}, called at ${calledAt}`,
  );
});
