import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createStorePage } from '../src/sites/store-pages.service.ts';
import { randomIds } from '../src/shared/ids.ts';
import { revokeApiKey } from '../src/sites/api-keys.service.ts';
import { digest } from '../src/shared/secrets.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { appWithoutDatabase } from './helpers/no-database.ts';
import { assertError } from './helpers/shape.ts';
import { noticed, testApp, type Site, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp();
  // A route that fails unexpectedly, to see what a 500 tells the caller.
  ctx.app.get('/test-only/boom', async () => {
    throw new Error('connection string postgres://admin:hunter2@db');
  });
  site = await ctx.site();
});
after(() => ctx.close());

const LIST = '/1.1/commerce/products';

describe('User-Agent', () => {
  // A request with no User-Agent header at all is tested on the real process (e2e/server.test.ts).
  test('empty or blank: 400 naming the header, before the credential is checked', async () => {
    for (const ua of ['', '   ']) {
      const res = await ctx.app.inject({ method: 'GET', url: LIST, headers: { 'user-agent': ua } });
      assertError(res, 400, 'INVALID_REQUEST_ERROR', null, /User-Agent/);
    }
  });
});

describe('authentication', () => {
  const get = (headers: Record<string, string>, url = LIST) =>
    ctx.app.inject({ method: 'GET', url, headers: { 'user-agent': 'tests', ...headers } });

  test('no credential: 401 with a Bearer challenge', async () => {
    const res = await get({});
    assertError(res, 401, 'AUTHORIZATION_ERROR', null, /Authorization/);
    assert.match(String(res.headers['www-authenticate']), /^Bearer /);
  });

  test('unknown, malformed or non-Bearer credentials: 401 invalid_token', async () => {
    for (const authorization of [
      'Bearer emp_key_nope',
      'Bearer',
      'Basic dXNlcjpwYXNz',
      `Token ${site.apiKey}`,
      `Bearer ${site.apiKey}x`,
    ]) {
      const res = await get({ authorization });
      assert.equal(res.statusCode, 401, authorization);
      assert.equal(res.json().type, 'AUTHORIZATION_ERROR');
    }
    assert.match(
      String((await get({ authorization: 'Bearer emp_key_nope' })).headers['www-authenticate']),
      /error="invalid_token"/,
    );
  });

  test('the scheme is case-insensitive', async () => {
    assert.equal((await get({ authorization: `bearer ${site.apiKey}` })).statusCode, 200);
  });

  test('RS-1 credentials are read only from the Authorization header', async () => {
    assert.equal(
      (await get({}, `${LIST}?access_token=${site.apiKey}&api_key=${site.apiKey}`)).statusCode,
      401,
    );
  });

  test('a revoked API key is refused as soon as the database announces it', async () => {
    const other = await ctx.site();
    assert.equal((await other.call({ method: 'GET', url: LIST })).statusCode, 200);
    const notice = noticed(ctx.changes, 'api_key', digest(other.apiKey).toString('hex'));
    assert.equal(await revokeApiKey(ctx, other.apiKey), true);
    await notice;
    assert.equal((await other.call({ method: 'GET', url: LIST })).statusCode, 401);
    assert.equal(await revokeApiKey(ctx, other.apiKey), false, 'revoking twice reports nothing revoked');
  });

  test('the key records when it was last used', async () => {
    const other = await ctx.site();
    await other.call({ method: 'GET', url: LIST });
    const row = await ctx.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('website_id', '=', other.websiteId)
      .executeTakeFirstOrThrow();
    assert.ok(row.last_used_at instanceof Date);
  });
});

describe('scopes', () => {
  test('a key without a products scope gets 403 MISSING_SCOPE on products and store pages', async () => {
    const inventory = await ctx.site({ scopes: ['website.inventory'] });
    assertError(
      await inventory.call({ method: 'GET', url: LIST }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
      /website\.products\.read/,
    );
    assertError(
      await inventory.call({ method: 'GET', url: '/1.0/commerce/store_pages' }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
    );
  });

  test('website.products implies website.products.read', async () => {
    const writer = await ctx.site({ scopes: ['website.products'] });
    assert.equal((await writer.call({ method: 'GET', url: LIST })).statusCode, 200);
  });

  test('a read scope cannot write', async () => {
    const reader = await ctx.site({ scopes: ['website.products.read'] });
    const res = await reader.call({ method: 'POST', url: LIST, payload: physical(reader) });
    assertError(res, 403, 'AUTHORIZATION_ERROR', 'MISSING_SCOPE', /website\.products scope/);
  });

  test('the website info needs no particular scope', async () => {
    const inventory = await ctx.site({ scopes: ['website.inventory.read'] });
    assert.equal(
      (await inventory.call({ method: 'GET', url: '/1.0/authorization/website' })).statusCode,
      200,
    );
  });
});

describe('routing and bodies', () => {
  test('an unknown path is a 404 in the error format', async () => {
    assertError(
      await site.call({ method: 'GET', url: '/1.1/commerce/nothing' }),
      404,
      'INVALID_REQUEST_ERROR',
      null,
      /no such endpoint/,
    );
  });

  test('a known path with a wrong method is a 405 with Allow', async () => {
    const res = await site.call({ method: 'PUT', url: `${LIST}/abc`, payload: {} });
    assertError(res, 405, 'METHOD_NOT_ALLOWED', null, /PUT/);
    assert.match(String(res.headers.allow), /GET/);
    assert.match(String(res.headers.allow), /POST/);
    assert.equal((await site.call({ method: 'PATCH', url: LIST })).statusCode, 405);
  });

  test('a body that is not JSON is a 415 INVALID_CONTENT_TYPE', async () => {
    const res = await site.call({
      method: 'POST',
      url: LIST,
      payload: 'type=PHYSICAL',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assertError(res, 415, 'INVALID_REQUEST_ERROR', 'INVALID_CONTENT_TYPE');
    assert.equal(
      (
        await site.call({
          method: 'POST',
          url: LIST,
          payload: 'x',
          headers: { 'content-type': 'text/plain' },
        })
      ).statusCode,
      415,
    );
  });

  test('malformed JSON and prototype poisoning are 400s', async () => {
    const send = (payload: string) =>
      site.call({ method: 'POST', url: LIST, payload, headers: { 'content-type': 'application/json' } });
    assertError(await send('{"type":'), 400, 'INVALID_REQUEST_ERROR', null, /not valid JSON/);
    assertError(
      await send('{"__proto__":{"isAdmin":true}}'),
      400,
      'INVALID_REQUEST_ERROR',
      null,
      /not valid JSON/,
    );
  });

  test('a body over 1 MiB is a 413', async () => {
    const res = await site.call({
      method: 'POST',
      url: LIST,
      payload: { description: 'x'.repeat(1_100_000) },
    });
    assertError(res, 413, 'INVALID_REQUEST_ERROR', null);
  });

  test('a deeply nested body is refused quickly, not parsed for minutes', async () => {
    const deep = `{"type":"PHYSICAL","tags":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const res = await site.call({
      method: 'POST',
      url: LIST,
      payload: deep,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400);
  });

  test('a DELETE with a JSON content type and no body works', async () => {
    const product = await createProduct(site, physical(site));
    const res = await site.call({
      method: 'DELETE',
      url: `${LIST}/${product.id}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 204);
  });

  test('an unexpected error is a 500 that says nothing about internals', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/test-only/boom' });
    assertError(res, 500, 'SERVER_ERROR', null);
    assert.doesNotMatch(res.body, /hunter2|postgres/);
  });
});

describe('logging', () => {
  test('the contextId of an error is in the log lines of that request', async () => {
    const res = await site.call({ method: 'GET', url: `${LIST}/ffffffffffffffffffffffff` });
    const { contextId } = res.json();
    assert.ok(ctx.logs.some((line) => JSON.parse(line).contextId === contextId));
  });

  test('RS-6 credentials never reach the log', async () => {
    await site.call({ method: 'GET', url: LIST });
    await ctx.app.inject({
      method: 'GET',
      url: LIST,
      headers: { 'user-agent': 't', authorization: `Bearer ${site.apiKey}zz` },
    });
    await ctx.app.inject({
      method: 'GET',
      url: '/test-only/boom',
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    const secret = site.apiKey.slice('emp_key_'.length);
    assert.ok(ctx.logs.length > 0);
    assert.deepEqual(
      ctx.logs.filter((line) => line.includes(secret)),
      [],
    );
  });

  test('RS-6 a request is logged without any header, on answered and failed requests alike', async () => {
    const cookie = 'emporium_session=cookie-secret-7f3a';
    const from = ctx.logs.length;
    await site.call({ method: 'GET', url: LIST, headers: { cookie } });
    await ctx.app.inject({
      method: 'GET',
      url: '/test-only/boom',
      headers: { authorization: `Bearer ${site.apiKey}`, cookie },
    });
    const lines = ctx.logs.slice(from).map((line) => JSON.parse(line) as { req?: object });
    const requests = lines.filter((line) => line.req !== undefined);
    assert.ok(requests.length >= 2);
    for (const { req } of requests)
      assert.deepEqual(Object.keys(req!).sort(), ['method', 'remoteAddress', 'url']);
    assert.deepEqual(
      ctx.logs.slice(from).filter((line) => line.includes('cookie-secret')),
      [],
    );
  });

  test("a request's one line is the line pino writes for request.log.info({ req, status, ms }, 'request')", async () => {
    const from = ctx.logs.length;
    await ctx.app.inject({ method: 'GET', url: '/healthz?token=s3cret&x=1' });
    const written = ctx.logs.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(written.length, 1);
    const line = written[0]!;
    const req = { method: 'GET', url: '/healthz?token=s3cret&x=1', ip: '127.0.0.1' };
    ctx.app.log.child({ contextId: line.contextId }).info({ req, status: 200, ms: line.ms }, 'request');
    const byPino = JSON.parse(ctx.logs.at(-1)!) as Record<string, unknown>;
    assert.ok(typeof line.time === 'number' && Math.abs(line.time - (byPino.time as number)) < 60_000);
    assert.deepEqual({ ...line, time: 0 }, { ...byPino, time: 0 });
    assert.deepEqual(line.req, {
      method: 'GET',
      url: '/healthz?token=[REDACTED]&x=1',
      remoteAddress: '127.0.0.1',
    });
  });

  test('below the info level, requests are not logged', async () => {
    const quiet = await testApp({ logLevel: 'warn', databaseUrl: ctx.url });
    try {
      assert.equal((await quiet.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      assert.deepEqual(quiet.logs, []);
    } finally {
      await quiet.close();
    }
  });
});

describe('store pages and website', () => {
  test('GET /1.0/commerce/store_pages lists the pages of the website, paged by 50', async () => {
    const other = await ctx.site();
    for (let i = 0; i < 55; i++)
      await createStorePage({ ...ctx, ids: randomIds }, { websiteId: other.websiteId, title: `Page ${i}` });
    const first = (await other.call({ method: 'GET', url: '/1.0/commerce/store_pages' })).json();
    assert.equal(first.storePages.length, 50);
    assert.deepEqual(first.storePages[0], {
      id: other.storePageId,
      title: 'Shop',
      urlSlug: 'shop',
      isEnabled: true,
    });
    assert.equal(first.pagination.hasNextPage, true);
    assert.match(
      first.pagination.nextPageUrl,
      /^https:\/\/api\.emporium\.test\/1\.0\/commerce\/store_pages\?cursor=/,
    );
    const second = (
      await other.call({
        method: 'GET',
        url: `/1.0/commerce/store_pages?cursor=${first.pagination.nextPageCursor}`,
      })
    ).json();
    assert.equal(second.storePages.length, 6);
    assert.deepEqual(second.pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
    const foreign = await site.call({
      method: 'GET',
      url: `/1.0/commerce/store_pages?cursor=${first.pagination.nextPageCursor}`,
    });
    assertError(foreign, 400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /cursor/);
  });

  test('a store page carries its own urlSlug, the one its title left free', async () => {
    const other = await ctx.site();
    const ids = { ...ctx, ids: randomIds };
    const { storePageId: sale } = await createStorePage(ids, {
      websiteId: other.websiteId,
      title: 'Winter Sale!',
    });
    const { storePageId: shop2 } = await createStorePage(ids, { websiteId: other.websiteId, title: 'Shop' });
    const pages = (await other.call({ method: 'GET', url: '/1.0/commerce/store_pages' })).json().storePages;
    const slugs = new Map(pages.map((p: { id: string; urlSlug: string }) => [p.id, p.urlSlug]));
    assert.deepEqual(
      [slugs.get(other.storePageId), slugs.get(sale), slugs.get(shop2)],
      ['shop', 'winter-sale', 'shop-2'],
    );
  });

  test('GET /1.0/authorization/website (and /1.1) answers every field of the platform, in its order', async () => {
    const metric = await ctx.site({ currency: 'EUR', measurementStandard: 'METRIC' });
    for (const version of ['1.0', '1.1']) {
      const res = await metric.call({ method: 'GET', url: `/${version}/authorization/website` });
      assert.equal(res.statusCode, 200);
      assert.equal(
        res.body,
        JSON.stringify({
          id: metric.websiteId,
          siteId: metric.websiteId,
          title: 'Test Store',
          url: `https://api.emporium.test/s/${metric.websiteId}`,
          currency: 'EUR',
          language: 'en-US',
          timeZone: 'UTC',
          measurementStandard: 'METRIC',
          location: { country: null, region: null },
        }),
      );
    }
  });
});

describe('health', () => {
  test('/healthz and /readyz answer without credentials', async () => {
    assert.deepEqual((await ctx.app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    assert.deepEqual((await ctx.app.inject({ method: 'GET', url: '/readyz' })).json(), {
      status: 'ok',
      checks: { database: 'ok', 'image storage': 'ok' },
    });
  });
});

describe('database outage', () => {
  test('an unreachable database is a 503 SERVICE_UNAVAILABLE, on the API and on /readyz', async () => {
    const { app, close } = await appWithoutDatabase();
    try {
      const res = await app.inject({ method: 'GET', url: LIST, headers: site.headers });
      assertError(res, 503, 'SERVICE_UNAVAILABLE', null, /database/);
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
      assert.equal(
        (await app.inject({ method: 'GET', url: '/healthz' })).statusCode,
        200,
        'the process itself is up',
      );
    } finally {
      await close();
    }
  });
});
