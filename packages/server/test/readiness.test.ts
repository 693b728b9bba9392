import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { freePort } from '../src/shared/net.ts';
import { appWithoutDatabase } from './helpers/no-database.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

/** A client as main.ts makes it, for a Redis at `url`. */
function redisAt(url: string): Redis {
  const redis = new Redis(url, { connectTimeout: 500, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  return redis;
}

test('/healthz answers ok; /readyz answers ok with each check it passed', async () => {
  const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(health.statusCode, 200);
  assert.deepEqual(health.json(), { status: 'ok' });
  const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(ready.statusCode, 200);
  assert.deepEqual(ready.json(), { status: 'ok', checks: { database: 'ok', 'image storage': 'ok' } });
});

test('with Redis configured, /readyz checks it too', async (t) => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 1 });
  try {
    await probe.connect();
  } catch {
    probe.disconnect();
    t.skip(`no Redis at ${url}`);
    return;
  }
  probe.disconnect();
  const redis = redisAt(url);
  const withRedis = await testApp({ logLevel: 'silent', redis });
  try {
    const ready = await withRedis.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.deepEqual(ready.json(), {
      status: 'ok',
      checks: { database: 'ok', 'image storage': 'ok', redis: 'ok' },
    });
  } finally {
    await withRedis.close();
    redis.disconnect();
  }
});

test('Redis unreachable: /readyz is a 503 that names it, while /healthz and the API still answer', async () => {
  const redis = redisAt(`redis://127.0.0.1:${await freePort()}`); // nothing listens there
  const withRedis = await testApp({ logLevel: 'silent', redis });
  try {
    const ready = await withRedis.app.inject({ method: 'GET', url: '/readyz' });
    assertError(ready, 503, 'SERVICE_UNAVAILABLE', null, /^not ready: redis is unreachable$/);
    assert.equal((await withRedis.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const site = await withRedis.site();
    const list = await site.call({ method: 'GET', url: '/1.1/commerce/products' });
    assert.equal(list.statusCode, 200, 'rate limits let requests pass while Redis is away');
  } finally {
    await withRedis.close();
    redis.disconnect();
  }
});

test('database unreachable: /readyz is a 503 that names it, and names every other check that failed', async () => {
  const alone = await appWithoutDatabase();
  try {
    const ready = await alone.app.inject({ method: 'GET', url: '/readyz' });
    assertError(ready, 503, 'SERVICE_UNAVAILABLE', null, /^not ready: database is unreachable$/);
    assert.equal((await alone.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  } finally {
    await alone.close();
  }

  const redis = redisAt(`redis://127.0.0.1:${await freePort()}`);
  const both = await appWithoutDatabase(redis);
  try {
    const ready = await both.app.inject({ method: 'GET', url: '/readyz' });
    assertError(ready, 503, 'SERVICE_UNAVAILABLE', null, /^not ready: database and redis are unreachable$/);
  } finally {
    await both.close();
    redis.disconnect();
  }
});
