import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { LocalCounter } from '../src/http/rate-limit.ts';
import { assertError } from './helpers/shape.ts';
import { testApp } from './helpers/test-app.ts';

const LIST = '/1.1/commerce/products';

/** The machine's Redis (REDIS_URL, or the default port), or undefined with the test skipped. */
async function localRedis(t: TestContext): Promise<Redis | undefined> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    return redis;
  } catch {
    redis.disconnect();
    t.skip(`no Redis at ${url}`);
    return undefined;
  }
}

describe('counting in the process', () => {
  test('a key counts up within its minute and starts afresh when the minute is over', () => {
    let now = 1_000_000;
    const counter = new LocalCounter(() => now);
    assert.deepEqual(counter.hit('a'), { count: 1, ttlMs: 60_000 });
    now += 59_000;
    assert.deepEqual(counter.hit('a'), { count: 2, ttlMs: 1_000 });
    assert.deepEqual(counter.hit('b'), { count: 1, ttlMs: 60_000 }, 'each key has a window of its own');
    now += 1_000;
    assert.deepEqual(counter.hit('a'), { count: 1, ttlMs: 60_000 });
  });

  test('at its size limit it forgets ended windows first, then the oldest, and never grows past it', () => {
    let now = 0;
    const counter = new LocalCounter(() => now, 3);
    counter.hit('ended');
    now += 60_000;
    counter.hit('old');
    counter.hit('old');
    counter.hit('middle');
    counter.hit('new'); // full: the ended window makes room
    assert.equal(counter.hit('old').count, 3, 'a live window is kept while an ended one can go');
    counter.hit('newest'); // full of live windows: the oldest, 'old', is forgotten
    assert.equal(counter.hit('middle').count, 2);
    assert.equal(counter.hit('old').count, 1, 'the forgotten key starts afresh');
  });
});

describe('the API limit', () => {
  test('a call refused for its scope counts toward the limit, as every call with the credential does', async () => {
    const limited = await testApp({ rateLimitPerMinute: 2, logLevel: 'silent' });
    try {
      const site = await limited.site({ scopes: ['website.orders.read'] });
      const forbidden = await site.call({ method: 'GET', url: LIST });
      assertError(forbidden, 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE');
      assert.equal(forbidden.headers['ratelimit-remaining'], '1');
      assert.equal((await site.call({ method: 'GET', url: '/1.0/commerce/orders' })).statusCode, 200);
      assertError(
        await site.call({ method: 'GET', url: '/1.0/commerce/orders' }),
        429,
        'TOO_MANY_REQUESTS',
        null,
      );
    } finally {
      await limited.close();
    }
  });

  test("with Redis, a credential's count is kept under the key the previous release used, so both count together during an upgrade", async (t) => {
    const redis = await localRedis(t);
    if (!redis) return;
    const limited = await testApp({ rateLimitPerMinute: 5, logLevel: 'silent', redis });
    try {
      const site = await limited.site();
      const { id } = await limited.db
        .selectFrom('api_keys')
        .select('id')
        .where('website_id', '=', site.websiteId)
        .executeTakeFirstOrThrow();
      const key = `emporium:rate:api_key:${id}`;
      // Three calls counted by an instance of the previous release, then one by this one.
      await redis.set(key, '3', 'PX', 60_000);
      const res = await site.call({ method: 'GET', url: LIST });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-remaining'], '1');
      assert.equal(await redis.get(key), '4');
      const ttl = await redis.pttl(key);
      assert.ok(ttl > 0 && ttl <= 60_000, `the window ends within the minute (${ttl} ms)`);
      const reset = Number(res.headers['ratelimit-reset']);
      assert.ok(
        reset >= Math.ceil(ttl / 1000) && reset <= 60,
        `RateLimit-Reset ${reset} follows the key's time to live`,
      );
    } finally {
      await limited.close();
      redis.disconnect();
    }
  });
});

describe('rate limits', () => {
  test('over the per-credential limit: 429 with Retry-After and RateLimit headers; other credentials unaffected', async () => {
    const limited = await testApp({ rateLimitPerMinute: 3, logLevel: 'silent' });
    try {
      const a = await limited.site();
      const b = await limited.site();
      for (let i = 0; i < 3; i++) {
        const res = await a.call({ method: 'GET', url: LIST });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['ratelimit-limit'], '3');
        assert.equal(res.headers['ratelimit-remaining'], String(2 - i));
        assert.ok(Number(res.headers['ratelimit-reset']) > 0);
      }
      const res = await a.call({ method: 'GET', url: LIST });
      assertError(res, 429, 'TOO_MANY_REQUESTS', null, /rate limit/);
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.equal((await b.call({ method: 'GET', url: LIST })).statusCode, 200);
    } finally {
      await limited.close();
    }
  });

  test('with REDIS_URL, instances share one count per credential', async (t) => {
    const redis = await localRedis(t);
    if (!redis) return;
    const first = await testApp({ rateLimitPerMinute: 3, logLevel: 'silent', redis });
    const second = await testApp({
      rateLimitPerMinute: 3,
      logLevel: 'silent',
      redis,
      databaseUrl: first.url,
    });
    try {
      const key = await first.site();
      const onSecond = (url: string) => second.app.inject({ method: 'GET', url, headers: key.headers });
      assert.equal((await key.call({ method: 'GET', url: LIST })).statusCode, 200);
      assert.equal((await onSecond(LIST)).statusCode, 200);
      const third = await key.call({ method: 'GET', url: LIST });
      assert.equal(third.headers['ratelimit-remaining'], '0');
      assertError(await onSecond(LIST), 429, 'TOO_MANY_REQUESTS', null);
    } finally {
      await second.close();
      await first.close();
      redis.disconnect();
    }
  });
});
