import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AbortError,
  AuthenticationError,
  Emporium,
  EmporiumOAuth,
  MemoryTokenStore,
  OAuthError,
  ReauthorizationRequired,
  type TokenSet,
} from '../../src/index.ts';
import {
  apiErrorBody,
  fakeFetch,
  hang,
  instantSleep,
  json,
  type SeenRequest,
} from '../helpers/fake-fetch.ts';

const BASE = 'https://api.example.test';
const AUTH = 'https://login.example.test';
const NOW = 1_000_000_000;
const KEY = 'website-1';

/** A store that logs each write, so the tests can see a save come before the token's first use. */
class LoggingStore extends MemoryTokenStore {
  constructor(private readonly log: string[]) {
    super();
  }
  override async set(key: string, tokens: TokenSet): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 5)); // a slow disk
    await super.set(key, tokens);
    this.log.push(`saved ${tokens.accessToken}`);
  }
}

interface Server {
  /** The access tokens the API accepts. */
  valid: Set<string>;
  refreshes: number;
  /** Answer to the next refresh: a new pair, or an RFC 6749 error. */
  refreshAnswer?: () => Response;
}

function setup(options: { refreshDelayMs?: number } = {}) {
  const log: string[] = [];
  const server: Server = { valid: new Set(['at0']), refreshes: 0 };
  const { fetch, calls } = fakeFetch(async (request: SeenRequest) => {
    if (request.url.origin === AUTH) {
      const n = ++server.refreshes;
      log.push(`refresh ${JSON.parse(request.body as string).refresh_token}`);
      await new Promise((resolve) => setTimeout(resolve, options.refreshDelayMs ?? 0));
      if (server.refreshAnswer) return server.refreshAnswer();
      server.valid.add(`at${n}`);
      return json(200, {
        token_type: 'Bearer',
        access_token: `at${n}`,
        access_token_expires_at: '0',
        expires_in: 1800,
        refresh_token: `rt${n}`,
        refresh_token_expires_at: '0',
      });
    }
    const token = request.headers.get('authorization')!.replace('Bearer ', '');
    log.push(`api ${token}`);
    if (!server.valid.has(token))
      return json(401, apiErrorBody('AUTHORIZATION_ERROR'), {
        'www-authenticate': 'Bearer error="invalid_token"',
      });
    return json(200, { id: 'w1' });
  });
  const store = new LoggingStore(log);
  const { sleep } = instantSleep();
  const auth = new EmporiumOAuth({
    clientId: 'c',
    clientSecret: 's',
    redirectUri: 'https://app.example.com/cb',
    authUrl: AUTH,
    userAgent: 'sdk-tests/1.0',
    fetch,
    sleep,
    now: () => NOW,
  });
  const client = new Emporium({
    userAgent: 'sdk-tests/1.0',
    baseUrl: BASE,
    oauth: { client: auth, store, key: KEY },
    fetch,
    sleep,
    now: () => NOW,
  });
  return { client, store, server, log, calls, auth, fetch };
}

const tokens = (expiresInMs: number, refreshToken: string | null = 'rt0'): TokenSet => ({
  accessToken: 'at0',
  accessTokenExpiresAt: NOW + expiresInMs,
  ...(refreshToken && { refreshToken, refreshTokenExpiresAt: NOW + 7 * 86_400_000 }),
});

describe('refresh before a call', () => {
  test('a token with more than 10 s left is used as it is', async () => {
    const { client, store, log } = setup();
    await store.set(KEY, tokens(10_001));
    log.length = 0;
    await client.website.get();
    assert.deepEqual(log, ['api at0']);
  });

  test('10 s or less left: refreshed first, and the new pair saved before its first use', async () => {
    for (const left of [10_000, 1, 0, -60_000]) {
      const { client, store, log } = setup();
      await store.set(KEY, tokens(left));
      log.length = 0;
      await client.website.get();
      assert.deepEqual(log, ['refresh rt0', 'saved at1', 'api at1'], `${left} ms left`);
      const saved = await store.get(KEY);
      assert.equal(saved!.accessToken, 'at1');
      assert.equal(saved!.refreshToken, 'rt1');
      assert.equal(saved!.accessTokenExpiresAt, NOW + 1_800_000);
    }
  });

  test('50 concurrent calls during a refresh: exactly one refresh request, every call on the new token', async () => {
    const { client, store, server, log } = setup({ refreshDelayMs: 30 });
    await store.set(KEY, tokens(5_000));
    log.length = 0;
    const results = await Promise.all(Array.from({ length: 50 }, () => client.website.get()));
    assert.equal(results.length, 50);
    assert.equal(server.refreshes, 1);
    assert.deepEqual(log.slice(0, 2), ['refresh rt0', 'saved at1']);
    assert.deepEqual(new Set(log.slice(2)), new Set(['api at1']));
    assert.equal(log.length, 52);
  });

  test('clients sharing a store and key share the refresh too', async () => {
    const first = setup({ refreshDelayMs: 20 });
    await first.store.set(KEY, tokens(0));
    const second = new Emporium({
      userAgent: 'x',
      baseUrl: BASE,
      oauth: { client: first.auth, store: first.store, key: KEY },
      fetch: first.fetch,
      now: () => NOW,
    });
    await Promise.all([first.client.website.get(), second.website.get(), first.client.website.get()]);
    assert.equal(first.server.refreshes, 1);
  });

  test('a call that read the old token just as a refresh ended uses the new one, with no second refresh', async () => {
    const { client, store, server } = setup();
    await store.set(KEY, tokens(0));
    await client.website.get();
    // The store now has at1; a session asked to replace at0 again finds at1 fresh and keeps it.
    const session = (client as unknown as { session: { afterUnauthorized(t: string): Promise<string> } })
      .session;
    assert.equal(await session.afterUnauthorized('at0'), 'at1');
    assert.equal(server.refreshes, 1);
  });

  test('online access (no refresh token): the token is used until it expires, then ReauthorizationRequired', async () => {
    const { client, store, server } = setup();
    await store.set(KEY, tokens(5_000, null));
    assert.deepEqual(await client.website.get(), { id: 'w1' });
    await store.set(KEY, tokens(0, null));
    await assert.rejects(client.website.get(), ReauthorizationRequired);
    assert.equal(server.refreshes, 0);
  });

  test('nothing stored under the key: ReauthorizationRequired', async () => {
    const { client } = setup();
    await assert.rejects(client.website.get(), ReauthorizationRequired);
  });
});

describe('a 401 from the API', () => {
  test('leads to one refresh and one retry', async () => {
    const { client, store, server, log } = setup();
    await store.set(KEY, tokens(60_000));
    server.valid.clear(); // revoked or expired early on the server's side
    log.length = 0;
    assert.deepEqual(await client.website.get(), { id: 'w1' });
    assert.deepEqual(log, ['api at0', 'refresh rt0', 'saved at1', 'api at1']);
  });

  test('concurrent 401s share one refresh', async () => {
    const { client, store, server } = setup({ refreshDelayMs: 20 });
    await store.set(KEY, tokens(60_000));
    server.valid.clear();
    await Promise.all(Array.from({ length: 20 }, () => client.website.get()));
    assert.equal(server.refreshes, 1);
  });

  test('a 401 after the refresh raises ReauthorizationRequired, and the store keeps the tokens', async () => {
    const { client, store, server, log } = setup();
    await store.set(KEY, tokens(60_000));
    server.valid.clear();
    const real = server.valid.add.bind(server.valid);
    server.valid.add = () => server.valid; // the new token is refused too
    const error = await client.website.get().catch((e: unknown) => e);
    server.valid.add = real;
    assert.ok(error instanceof ReauthorizationRequired);
    assert.ok(error instanceof AuthenticationError, 'still an AuthenticationError (401)');
    assert.ok(error.cause instanceof AuthenticationError);
    assert.equal(server.refreshes, 1, 'one refresh only');
    assert.equal(log.filter((l) => l.startsWith('api')).length, 2, 'one retry only');
    assert.equal((await store.get(KEY))!.accessToken, 'at1', 'nothing deleted');
  });

  test('a 401 for a token refreshed just before the call: ReauthorizationRequired at once, no second refresh', async () => {
    const { client, store, server, log } = setup();
    await store.set(KEY, tokens(0)); // due: refreshed before the call
    server.valid.add = () => server.valid; // the new token is refused (authorization revoked)
    log.length = 0;
    const error = await client.website.get().catch((e: unknown) => e);
    assert.ok(error instanceof ReauthorizationRequired);
    assert.ok(error.cause instanceof AuthenticationError);
    assert.equal(server.refreshes, 1, 'one refresh only');
    assert.deepEqual(log, ['refresh rt0', 'saved at1', 'api at1']);
  });

  test("the call's signal aborts the refresh it runs", async () => {
    const { fetch, calls } = fakeFetch((request) =>
      request.url.origin === AUTH ? hang(request) : json(200, { id: 'w1' }),
    );
    const store = new MemoryTokenStore();
    await store.set(KEY, tokens(0));
    const options = { userAgent: 'sdk-tests/1.0', fetch, sleep: instantSleep().sleep, timeoutMs: 300 };
    const auth = new EmporiumOAuth({
      ...options,
      clientId: 'c',
      clientSecret: 's',
      redirectUri: 'https://a/cb',
      authUrl: AUTH,
    });
    const client = new Emporium({
      ...options,
      baseUrl: BASE,
      oauth: { client: auth, store, key: KEY },
      now: () => NOW,
    });
    const controller = new AbortController();
    const pending = client.website.get({ signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    // Without the signal the refresh would run on to its timeout (a TimeoutError, after retries).
    await assert.rejects(pending, AbortError);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.signal!.aborted, true, 'the refresh request was aborted');
  });

  test('a call waiting on a refresh that another call aborted runs its own refresh', async () => {
    const { client, store, server } = setup({ refreshDelayMs: 0 });
    await store.set(KEY, tokens(0));
    const controller = new AbortController();
    controller.abort();
    const [aborted, waiting] = await Promise.allSettled([
      client.website.get({ signal: controller.signal }),
      client.website.get(),
    ]);
    assert.ok(aborted.status === 'rejected' && aborted.reason instanceof AbortError);
    assert.deepEqual(waiting, { status: 'fulfilled', value: { id: 'w1' } });
    assert.equal(server.refreshes, 1);
  });

  test('a refresh answered invalid_grant raises ReauthorizationRequired, and the store keeps the tokens', async () => {
    const { client, store, server } = setup();
    await store.set(KEY, tokens(0));
    server.refreshAnswer = () =>
      json(400, { error: 'invalid_grant', error_description: 'refresh_token: unknown, expired or revoked' });
    const error = await client.website.get().catch((e: unknown) => e);
    assert.ok(error instanceof ReauthorizationRequired);
    assert.ok(error.cause instanceof OAuthError && error.cause.error === 'invalid_grant');
    assert.deepEqual(await store.get(KEY), tokens(0));
  });

  test('other refresh failures are thrown as they are (not a reauthorization)', async () => {
    const { client, store, server } = setup();
    await store.set(KEY, tokens(0));
    server.refreshAnswer = () =>
      json(401, { error: 'invalid_client', error_description: 'client authentication failed' });
    await assert.rejects(
      client.website.get(),
      (e: unknown) =>
        e instanceof OAuthError && !(e instanceof ReauthorizationRequired) && e.error === 'invalid_client',
    );
  });

  test('an API key client passes a 401 through as AuthenticationError', async () => {
    const { fetch } = fakeFetch(() => json(401, apiErrorBody('AUTHORIZATION_ERROR')));
    const client = new Emporium({ userAgent: 'x', baseUrl: BASE, apiKey: 'bad', fetch });
    await assert.rejects(
      client.website.get(),
      (e: unknown) => e instanceof AuthenticationError && !(e instanceof ReauthorizationRequired),
    );
  });
});
