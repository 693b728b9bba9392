import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { registerErrorHandling } from '../src/http/error-handler.ts';
import { requestIds } from '../src/shared/ids.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * A version in the path that does not serve the resource named after it (platform-surface 0.1):
 * 404 with the platform's own message, apart from an unknown path and a wrong method.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const UNSUPPORTED = 'Not found. The API version is not supported.';

function assertUnsupportedVersion(res: { statusCode: number; json(): unknown }) {
  assertError(res, 404, 'INVALID_REQUEST_ERROR', null);
  assert.equal((res.json() as { message: string }).message, UNSUPPORTED);
}

describe('a resource asked for under a version that does not serve it', () => {
  test('is a 404 in the error format whose message is exactly the platform one', async () => {
    for (const url of [
      '/1.1/commerce/orders',
      '/v3/commerce/products',
      '/2.0/profiles',
      '/v1/commerce/products/abc',
      '/1.2/webhook_subscriptions',
      '/v9/commerce/products/x/variants/y',
      '/1.1/authorization/member',
      '/v1.0/authorization/website',
      '/2/commerce/store_pages',
      '/1.1/commerce/transactions/abc',
      '/1.1/commerce/orders/',
      '/1.1/commerce/orders?cursor=abc',
    ]) {
      assertUnsupportedVersion(await site.call({ method: 'GET', url }));
    }
  });

  test('is that 404 whatever the method', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      assertUnsupportedVersion(await site.call({ method, url: '/1.3/commerce/orders', payload: {} }));
      assertUnsupportedVersion(
        await site.call({ method, url: '/v2/webhook_subscriptions/abc', payload: {} }),
      );
    }
  });
});

describe('what stays as it was', () => {
  test('an unknown resource under any version, served or not, is the generic 404', async () => {
    for (const url of [
      '/1.1/commerce/nothing',
      '/v3/commerce/nothing',
      '/2.0/nothing',
      '/1.0/commerce',
      '/v2/profilesx',
      '/1.0/commerce/products/abc/nothing',
      '/1.0',
    ]) {
      assertError(
        await site.call({ method: 'GET', url }),
        404,
        'INVALID_REQUEST_ERROR',
        null,
        /no such endpoint/,
      );
    }
  });

  test('a first path segment that is not a version is the generic 404', async () => {
    for (const url of [
      '/latest/commerce/orders',
      '/api/1.0/commerce/orders',
      '/1.0a/commerce/orders',
      '/vv1/commerce/orders',
      '/1./commerce/orders',
      '/commerce/orders',
    ]) {
      assertError(
        await site.call({ method: 'GET', url }),
        404,
        'INVALID_REQUEST_ERROR',
        null,
        /no such endpoint/,
      );
    }
  });

  test('a served version with a wrong method is still a 405 with Allow', async () => {
    const orders = await site.call({ method: 'PUT', url: '/1.0/commerce/orders', payload: {} });
    assertError(orders, 405, 'METHOD_NOT_ALLOWED', null, /PUT/);
    assert.match(String(orders.headers.allow), /GET/);
    assertError(
      await site.call({ method: 'DELETE', url: '/1.0/authorization/website' }),
      405,
      'METHOD_NOT_ALLOWED',
      null,
    );
  });
});

describe('the served resources', () => {
  test('are read from the routes as they are registered, under a prefix too: up to the first parameter', async () => {
    // The app's request ids (app.ts), which errors carry as their contextId.
    const app = Fastify({ logger: false, genReqId: requestIds() });
    registerErrorHandling(app);
    await app.register(
      async (scoped) => {
        scoped.get('/widgets/:id/parts/:partId', async () => ({}));
      },
      { prefix: '/v7' },
    );
    app.get('/1.0/gadgets', async () => ({}));
    app.post('/v8/widgets/special', async () => ({}));
    try {
      assertUnsupportedVersion(await app.inject({ method: 'GET', url: '/v8/widgets/1/parts/2' }));
      assertUnsupportedVersion(await app.inject({ method: 'GET', url: '/v8/widgets' }));
      assertUnsupportedVersion(await app.inject({ method: 'GET', url: '/1.1/gadgets' }));
      // v8 serves widgets/special, so under v8 a longer path of it is a wrong path, not a wrong version.
      for (const url of ['/v7/widgets/1/nothing', '/v8/parts', '/v8/gizmos', '/v8/widgets/special/x']) {
        assertError(
          await app.inject({ method: 'GET', url }),
          404,
          'INVALID_REQUEST_ERROR',
          null,
          /no such endpoint/,
        );
      }
    } finally {
      await app.close();
    }
  });
});
