import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { loadStoreCsrf, requireStoreCsrf, STORE_COOKIE } from '../src/storefront/csrf.ts';
import { storeErrorHandler } from '../src/storefront/store.plugin.ts';

/*
 * The store's forms (cart, checkout) check their token with requireStoreCsrf; here on a route of
 * its own, with the storefront's error pages, so the rule is pinned whatever forms exist.
 */
describe('CSRF of store forms', () => {
  test('a post without the browser cookie and the same token in the form is refused with a 403 page', async () => {
    const app = Fastify();
    await app.register(cookie);
    await app.register(formbody);
    app.addHook('onRequest', (request, reply, done) => {
      request.storeCsrf = loadStoreCsrf(request, reply, false);
      done();
    });
    app.setErrorHandler(storeErrorHandler);
    app.post('/form', async (request) => {
      requireStoreCsrf(request);
      return 'done';
    });
    const token = 'a'.repeat(43);
    const post = (payload: string, cookieHeader?: string) =>
      app.inject({
        method: 'POST',
        url: '/form',
        payload,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookieHeader && { cookie: cookieHeader }),
        },
      });
    assert.equal((await post(`csrf=${token}`, `${STORE_COOKIE}=${token}`)).body, 'done');
    for (const [payload, cookieHeader] of [
      ['quantity=1', `${STORE_COOKIE}=${token}`],
      [`csrf=${'b'.repeat(43)}`, `${STORE_COOKIE}=${token}`],
      [`csrf=${token}`, undefined],
      [`csrf=${token}&csrf=${token}`, `${STORE_COOKIE}=${token}`],
    ] as const) {
      const res = await post(payload, cookieHeader);
      assert.equal(res.statusCode, 403, payload);
      assert.match(res.body, /<h1>Not allowed<\/h1>/);
      assert.match(res.body, /This form has expired or was not sent from this store/);
    }
    await app.close();
  });
});
