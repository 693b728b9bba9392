import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';
import { TestBrowser } from './helpers/browser.ts';
import { basic, tokenRequest } from './helpers/oauth.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * Behind a reverse proxy every client shares the proxy's address. TRUST_PROXY names the proxies
 * whose X-Forwarded-For is believed; from anywhere else the header is ignored (AB-1).
 */
const PROXY = '10.0.0.7';
const STRANGER = '10.0.0.99';

let ctx: TestContext;
before(async () => {
  ctx = await testApp({
    logLevel: 'silent',
    rateLimitPerMinute: 2,
    signInPerMinute: 2,
    trustProxy: [`${PROXY}/32`],
  });
});
after(() => ctx.close());

const tokenCall = (remoteAddress: string, client: string) =>
  tokenRequest(
    ctx,
    { grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://a.example/cb' },
    {
      authorization: basic('emp_unknown_client', 'wrong'),
      headers: { 'x-forwarded-for': client },
      remoteAddress,
    },
  );

describe('TRUST_PROXY', () => {
  test('is a list of addresses and CIDR ranges; anything else stops start-up with one line naming it', () => {
    assert.deepEqual(loadConfig({}).trustProxy, []);
    assert.deepEqual(
      loadConfig({ TRUST_PROXY: '10.0.0.7, 192.168.0.0/16,::1,fd00::/8,loopback' }).trustProxy,
      ['10.0.0.7', '192.168.0.0/16', '::1', 'fd00::/8', 'loopback'],
    );
    for (const bad of ['proxy.example.com', '10.0.0.0/33', '10.0.0.1/8/1', '*']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: bad }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(
            error.message,
            new RegExp(
              `^TRUST_PROXY must list IP addresses or CIDR ranges.*"${bad.replace(/[*/.]/g, '\\$&')}"`,
            ),
          );
          return true;
        },
      );
    }
  });

  test('through a trusted proxy, rate limits count each client apart by X-Forwarded-For', async () => {
    for (let i = 0; i < 2; i++) assert.equal((await tokenCall(PROXY, '203.0.113.1')).statusCode, 401);
    assert.equal((await tokenCall(PROXY, '203.0.113.1')).statusCode, 429, 'the first client is at its limit');
    assert.equal(
      (await tokenCall(PROXY, '203.0.113.2')).statusCode,
      401,
      'another client behind the proxy is not',
    );
  });

  test('from an address that is not a trusted proxy, X-Forwarded-For is ignored', async () => {
    for (let i = 0; i < 2; i++) assert.equal((await tokenCall(STRANGER, `198.51.100.${i}`)).statusCode, 401);
    assert.equal(
      (await tokenCall(STRANGER, '198.51.100.9')).statusCode,
      429,
      'one connecting address, one count',
    );
  });

  test("the audit log records the client's address through a trusted proxy, the connecting one otherwise", async () => {
    const viaProxy = new TestBrowser(ctx.app, {
      remoteAddress: PROXY,
      headers: { 'x-forwarded-for': '203.0.113.50' },
    });
    const direct = new TestBrowser(ctx.app, {
      remoteAddress: STRANGER,
      headers: { 'x-forwarded-for': '203.0.113.51' },
    });
    assert.equal((await viaProxy.signIn('nobody@example.com', 'wrong password')).statusCode, 401);
    assert.equal((await direct.signIn('nobody@example.com', 'wrong password')).statusCode, 401);
    const rows = await ctx.db
      .selectFrom('audit_events')
      .select('ip')
      .where('kind', '=', 'login_failed')
      .execute();
    assert.deepEqual(rows.map((r) => r.ip).sort(), ['10.0.0.99', '203.0.113.50']);
  });
});
