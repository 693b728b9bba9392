import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { AccessDenied, EmporiumError, EmporiumOAuth, OAuthError, StateMismatch } from '../../src/index.ts';
import { sha256 } from '../../src/encoding.ts';
import { fakeFetch, instantSleep, json, networkError, sequence } from '../helpers/fake-fetch.ts';

const AUTH = 'https://login.example.test';
const REDIRECT = 'https://app.example.com/callback';

function oauth(fetch = fakeFetch(() => json(500, {})).fetch, now = () => 1_000_000) {
  return new EmporiumOAuth({
    clientId: 'client-1',
    clientSecret: 'emp_cs_secret',
    redirectUri: REDIRECT,
    authUrl: `${AUTH}/`,
    userAgent: 'sdk-tests/1.0',
    fetch,
    now,
    sleep: instantSleep().sleep,
  });
}

describe('authorizeUrl', () => {
  test('carries the client, redirect URI, scopes, a random state and the options', () => {
    const { url, state, codeVerifier } = oauth().authorizeUrl({
      scopes: ['website.products.read', 'website.inventory'],
      offline: true,
      websiteId: 'a'.repeat(24),
      pkce: false,
    });
    const parsed = new URL(url);
    assert.equal(parsed.origin + parsed.pathname, `${AUTH}/api/1/login/oauth/provider/authorize`);
    assert.deepEqual(Object.fromEntries(parsed.searchParams), {
      client_id: 'client-1',
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'website.products.read,website.inventory',
      state,
      access_type: 'offline',
      website_id: 'a'.repeat(24),
    });
    assert.match(state, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
    assert.equal(codeVerifier, undefined);
  });

  test('a new state each time; a given state and redirect URI are used as they are', () => {
    const client = oauth();
    assert.notEqual(
      client.authorizeUrl({ scopes: ['website.products'] }).state,
      client.authorizeUrl({ scopes: ['website.products'] }).state,
    );
    const given = 'my-state.0123456789_abcdefghijklm~';
    const { url, state } = client.authorizeUrl({
      scopes: ['website.products'],
      state: given,
      redirectUri: 'http://127.0.0.1:3000/cb',
    });
    const params = new URL(url).searchParams;
    assert.equal(state, given);
    assert.equal(params.get('state'), given);
    assert.equal(params.get('redirect_uri'), 'http://127.0.0.1:3000/cb');
    assert.equal(params.get('access_type'), null);
    assert.equal(params.get('website_id'), null);
  });

  test('PKCE: an S256 challenge of a 43-character verifier (RFC 7636)', () => {
    const { url, codeVerifier, codeChallenge } = oauth().authorizeUrl({
      scopes: ['website.products'],
      pkce: true,
    });
    assert.match(codeVerifier!, /^[A-Za-z0-9_-]{43}$/);
    const params = new URL(url).searchParams;
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.equal(
      params.get('code_challenge'),
      createHash('sha256').update(codeVerifier!).digest('base64url'),
    );
    assert.equal(codeChallenge, params.get('code_challenge'));
  });

  test('PKCE is on by default; only pkce: false turns it off', () => {
    const client = oauth();
    const byDefault = client.authorizeUrl({ scopes: ['website.products'] });
    assert.match(byDefault.codeVerifier!, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(new URL(byDefault.url).searchParams.get('code_challenge_method'), 'S256');
    const off = client.authorizeUrl({ scopes: ['website.products'], pkce: false });
    assert.equal(off.codeVerifier, undefined);
    assert.equal(new URL(off.url).searchParams.get('code_challenge'), null);
  });

  test('a given state must be 32 to 500 unreserved characters', () => {
    const client = oauth();
    for (const state of [
      'my-state',
      'a'.repeat(31),
      'a'.repeat(501),
      `${'a'.repeat(32)} `,
      `${'a'.repeat(32)}+/=`,
    ]) {
      assert.throws(
        () => client.authorizeUrl({ scopes: ['website.products'], state }),
        (e: unknown) => e instanceof TypeError && /state must be 32 to 500/.test(e.message),
        JSON.stringify(state),
      );
    }
    for (const state of ['a'.repeat(32), 'A-z0.9_~'.repeat(62) + 'abcd']) {
      assert.equal(client.authorizeUrl({ scopes: ['website.products'], state }).state, state);
    }
  });

  test("the JavaScript SHA-256 agrees with node:crypto's on every length around the block edges", () => {
    assert.equal(
      Buffer.from(sha256(new TextEncoder().encode('abc'))).toString('hex'),
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    for (let length = 0; length < 200; length++) {
      const bytes = randomBytes(length);
      assert.equal(
        Buffer.from(sha256(bytes)).toString('hex'),
        createHash('sha256').update(bytes).digest('hex'),
        `length ${length}`,
      );
    }
  });

  test('needs a scope', () => {
    assert.throws(() => oauth().authorizeUrl({ scopes: [] }), /scope/);
  });
});

describe('handleCallback', () => {
  const client = oauth();
  test('returns the code when the state is the one sent', () => {
    assert.deepEqual(client.handleCallback(`${REDIRECT}?code=abc123&state=s1`, { state: 's1' }), {
      code: 'abc123',
      state: 's1',
    });
    assert.deepEqual(
      client.handleCallback('/callback?code=abc123&state=s1', { state: 's1' }).code,
      'abc123',
      'a path and query is enough',
    );
  });

  test('Deny (error=access_denied, no state) throws AccessDenied', () => {
    const error = (() => {
      try {
        client.handleCallback(`${REDIRECT}?error=access_denied`, { state: 's1' });
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof AccessDenied);
    assert.ok(error instanceof OAuthError && error instanceof EmporiumError);
    assert.equal(error.error, 'access_denied');
  });

  test('another error throws an OAuthError with its code', () => {
    assert.throws(
      () =>
        client.handleCallback(`${REDIRECT}?error=invalid_scope&error_description=scope%3A+unknown&state=s1`, {
          state: 's1',
        }),
      (e: unknown) =>
        e instanceof OAuthError &&
        !(e instanceof AccessDenied) &&
        e.error === 'invalid_scope' &&
        e.errorDescription === 'scope: unknown',
    );
  });

  test('a wrong or missing state throws StateMismatch, whatever the code', () => {
    for (const query of ['code=abc&state=s2', 'code=abc', 'code=abc&state=s', 'code=abc&state=s11']) {
      assert.throws(
        () => client.handleCallback(`${REDIRECT}?${query}`, { state: 's1' }),
        StateMismatch,
        query,
      );
    }
    assert.throws(() => client.handleCallback(`${REDIRECT}?code=abc&state=`, { state: '' }), StateMismatch);
  });

  test('no code throws an OAuthError', () => {
    assert.throws(
      () => client.handleCallback(`${REDIRECT}?state=s1`, { state: 's1' }),
      (e: unknown) => e instanceof OAuthError && e.error === 'invalid_request',
    );
  });
});

describe('the token endpoint', () => {
  const success = {
    token_type: 'Bearer',
    access_token: 'emp_at_1',
    access_token_expires_at: '2000.000',
    expires_in: 1800,
    token: 'emp_at_1',
    refresh_token: 'emp_rt_1',
    refresh_token_expires_at: '606200.500',
  };

  test('exchangeCode: Basic client credentials, JSON body, a TokenSet on the local clock', async () => {
    const { fetch, calls } = fakeFetch(() => json(200, success, { 'cache-control': 'no-store' }));
    const tokens = await oauth(fetch, () => 5_000).exchangeCode('code-1', { codeVerifier: 'v'.repeat(43) });
    const [request] = calls;
    assert.equal(request!.url.toString(), `${AUTH}/api/1/login/oauth/provider/tokens`);
    assert.equal(
      request!.headers.get('authorization'),
      `Basic ${Buffer.from('client-1:emp_cs_secret').toString('base64')}`,
    );
    assert.equal(request!.headers.get('user-agent'), 'sdk-tests/1.0');
    assert.deepEqual(JSON.parse(request!.body as string), {
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: REDIRECT,
      code_verifier: 'v'.repeat(43),
    });
    // expires_in from when the request was sent (5 s); the refresh expiry shifted by the same clock difference.
    assert.deepEqual(tokens, {
      accessToken: 'emp_at_1',
      accessTokenExpiresAt: 5_000 + 1_800_000,
      refreshToken: 'emp_rt_1',
      refreshTokenExpiresAt: 606_200_500 - (2_000_000 - 1_805_000),
    });
  });

  test('online access: no refresh token in the TokenSet', async () => {
    const { fetch } = fakeFetch(() =>
      json(200, { ...success, refresh_token: undefined, refresh_token_expires_at: undefined }),
    );
    const tokens = await oauth(fetch).exchangeCode('code-1');
    assert.equal(tokens.refreshToken, undefined);
    assert.equal('refreshTokenExpiresAt' in tokens, false);
  });

  test('refresh sends the refresh grant', async () => {
    const { fetch, calls } = fakeFetch(() => json(200, success));
    await oauth(fetch).refresh('emp_rt_0');
    assert.deepEqual(JSON.parse(calls[0]!.body as string), {
      grant_type: 'refresh_token',
      refresh_token: 'emp_rt_0',
    });
  });

  test('RFC 6749 error bodies become OAuthErrors with the status', async () => {
    const { fetch } = fakeFetch(() =>
      json(400, { error: 'invalid_grant', error_description: 'code: unknown, expired or already used' }),
    );
    const error = await oauth(fetch)
      .exchangeCode('used')
      .catch((e: unknown) => e);
    assert.ok(error instanceof OAuthError);
    assert.equal(error.status, 400);
    assert.equal(error.error, 'invalid_grant');
    assert.equal(error.type, 'invalid_grant');
    assert.equal(error.errorDescription, 'code: unknown, expired or already used');

    const client = fakeFetch(() =>
      json(
        401,
        { error: 'invalid_client', error_description: 'client authentication failed' },
        { 'www-authenticate': 'Basic' },
      ),
    );
    await assert.rejects(
      oauth(client.fetch).refresh('rt'),
      (e: unknown) => e instanceof OAuthError && e.status === 401 && e.error === 'invalid_client',
    );
  });

  test('a code exchange is never retried after a network error or 5xx (a code is single use); a refresh is', async () => {
    const exchange = sequence(networkError, () => json(200, success));
    await assert.rejects(oauth(exchange.fetch).exchangeCode('c'), EmporiumError);
    assert.equal(exchange.calls.length, 1);

    const refresh = sequence(
      networkError,
      () => json(503, { error: 'server_error' }),
      () => json(200, success),
    );
    assert.equal((await oauth(refresh.fetch).refresh('rt')).accessToken, 'emp_at_1');
    assert.equal(refresh.calls.length, 3);
  });

  test('429 temporarily_unavailable is retried after Retry-After', async () => {
    const { fetch, calls } = sequence(
      () =>
        json(
          429,
          { error: 'temporarily_unavailable', error_description: 'slow down' },
          { 'retry-after': '1' },
        ),
      () => json(200, success),
    );
    assert.equal((await oauth(fetch).exchangeCode('c')).accessToken, 'emp_at_1');
    assert.equal(calls.length, 2);
  });

  test('refresh without a refresh token fails as invalid_grant without a request', async () => {
    const { fetch, calls } = fakeFetch(() => json(200, success));
    await assert.rejects(
      oauth(fetch).refresh(undefined),
      (e: unknown) => e instanceof OAuthError && e.error === 'invalid_grant',
    );
    assert.equal(calls.length, 0);
  });
});
