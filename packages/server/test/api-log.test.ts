import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { listRequests, requestById } from '../src/api-log/requests.service.ts';
import { sweepApiLog } from '../src/api-log/retention.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { SCOPES } from '../src/shared/scopes.ts';
import { apiCall, grantTokens, refresh, registerApp, tokenRequest, type App } from './helpers/oauth.ts';
import { customLine, importBody, importOrder } from './helpers/orders.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

const TOKEN = 'emp_test_a-token-for-the-request-log';
const PRODUCTS = '/1.1/commerce/products';
const CARD = '4111111111111111';

let ctx: TestContext;
let site: Site;
let other: Site;
let app: App;

before(async () => {
  ctx = await testApp({ logLevel: 'silent', testControlsToken: TOKEN });
  site = await ctx.site();
  other = await ctx.site();
  app = await registerApp(ctx);
});
after(() => ctx.close());

const logged = async (websiteId: string, filter: Parameters<typeof listRequests>[2] = {}) => {
  await ctx.app.apiLog.flush();
  return (await listRequests(ctx.db, websiteId, filter)).requests;
};

describe('the request log', () => {
  test('a request is logged with its fields and its credential’s name', async () => {
    const res = await site.call({ method: 'GET', url: `${PRODUCTS}?pageSize=5` });
    assert.equal(res.statusCode, 200, res.body);
    const [line] = await logged(site.websiteId, { path: `${PRODUCTS}?pageSize=5` });
    assert.ok(line);
    assert.equal(line.method, 'GET');
    assert.equal(line.path, `${PRODUCTS}?pageSize=5`);
    assert.equal(line.status, 200);
    assert.ok(line.latencyMs >= 0);
    assert.equal(line.credential.kind, 'api_key');
    assert.equal(line.credential.name, 'API key');
    assert.equal(line.responseBody, res.body);
    assert.equal(line.fault, null);
    assert.equal(line.websiteId, site.websiteId);
    const one = await requestById(ctx.db, site.websiteId, line.id);
    assert.equal(one?.contextId, line.contextId);
    assert.deepEqual(
      (await logged(site.websiteId, { contextId: line.contextId })).map((l) => l.id),
      [line.id],
    );
    assert.equal(await requestById(ctx.db, other.websiteId, line.id), undefined);
  });

  test('the time is the website’s, moved ahead by its clock', async () => {
    ctx.api.clock.setShift(other.websiteId, 48 * 3600_000);
    try {
      await other.call({ method: 'GET', url: PRODUCTS });
      const [line] = await logged(other.websiteId);
      const serviceNow = Date.now();
      assert.ok(line!.at.getTime() > ctx.clock.now().getTime() + 47 * 3600_000, String(serviceNow));
    } finally {
      ctx.api.clock.setShift(other.websiteId, 0);
    }
  });

  test('bodies are cut at 16 KB, and the cut is marked', async () => {
    const res = await site.call({
      method: 'POST',
      url: `${PRODUCTS}?big=1`,
      payload: { type: 'PHYSICAL', name: 'x'.repeat(40_000) },
    });
    assert.ok(res.statusCode >= 200);
    const [line] = await logged(site.websiteId, { path: `${PRODUCTS}?big=1` });
    assert.ok(line);
    assert.equal(line.requestBodyCut, true);
    assert.equal(Buffer.byteLength(line.requestBody!), 16 * 1024);
    assert.equal(line.responseBodyCut, false);
  });

  test('secrets are redacted: Authorization, passwords, card numbers, and the token endpoint’s', async () => {
    const password = await site.call({
      method: 'POST',
      url: `${PRODUCTS}?password=1`,
      payload: { type: 'PHYSICAL', name: 'Secretive', password: 'hunter2-hunter2' },
    });
    const order = await importOrder(
      site,
      importBody([customLine('Mug')], {
        payment: { cardNumber: '4242 4242 4242 4242', cvc: '123', note: `paid by ${CARD}` },
      }),
    );
    const tokens = await grantTokens(ctx, app, site.websiteId, { offline: true });
    const refreshed = await refresh(ctx, app, tokens.refresh_token!);
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    const fresh = refreshed.json();
    const api = await apiCall(ctx, fresh.access_token);
    assert.equal(api.statusCode, 200, api.body);

    const lines = await logged(site.websiteId);
    const everything = JSON.stringify(lines);
    for (const secret of [
      site.apiKey,
      app.clientSecret,
      tokens.access_token,
      tokens.refresh_token!,
      fresh.access_token,
      fresh.refresh_token,
      'hunter2-hunter2',
      CARD,
      '4242 4242 4242 4242',
      '"123"',
    ]) {
      assert.ok(!everything.includes(secret), `kept: ${secret}`);
    }
    assert.ok(password.statusCode >= 200 && order.statusCode >= 200);
    const byPath = (path: string) => lines.find((line) => line.path === path);
    assert.match(byPath(`${PRODUCTS}?password=1`)!.requestBody!, /"password":"\[redacted\]"/);
    const orderLine = byPath('/1.0/commerce/orders')!;
    assert.match(
      orderLine.requestBody!,
      /"cardNumber":"\[redacted\]","cvc":"\[redacted\]","note":"paid by \[redacted\]"/,
    );

    const tokenLines = lines.filter((line) => line.path.startsWith('/api/1/login/oauth'));
    assert.equal(tokenLines.length, 2, 'the code and the refresh, under the grant’s website');
    for (const line of tokenLines) {
      assert.equal(line.credential.kind, 'oauth');
      assert.equal(line.credential.id, app.clientId);
      assert.equal(line.credential.name, 'Inventory Sync');
      assert.equal(line.status, 200);
      assert.match(line.responseBody!, /"access_token":"\[redacted\]"/);
      assert.match(line.responseBody!, /"refresh_token":"\[redacted\]"/);
    }
    assert.ok(tokenLines.some((line) => /"code":"\[redacted\]"/.test(line.requestBody!)));
    assert.ok(tokenLines.some((line) => /"refresh_token":"\[redacted\]"/.test(line.requestBody!)));
    const apiLine = lines.find((line) => line.credential.kind === 'oauth' && line.path === PRODUCTS)!;
    assert.equal(apiLine.credential.kind, 'oauth');
    assert.equal(apiLine.credential.name, 'Inventory Sync');
  });

  test('a refused token request is logged under the website its code names, an unknown one nowhere', async () => {
    const code = await import('./helpers/oauth.ts').then(({ allow }) => allow(ctx, app, other.websiteId));
    const refused = await tokenRequest(
      ctx,
      { grant_type: 'authorization_code', code, redirect_uri: 'https://elsewhere.example/cb' },
      { authorization: app.authorization },
    );
    assert.equal(refused.statusCode, 400, refused.body);
    const unknown = await tokenRequest(
      ctx,
      { grant_type: 'authorization_code', code: 'no-such-code', redirect_uri: 'https://x.example/cb' },
      { authorization: app.authorization },
    );
    assert.equal(unknown.statusCode, 400);
    const lines = await logged(other.websiteId, { app: app.clientId });
    assert.equal(lines.length, 1, 'the refused code; the unknown one is logged nowhere');
    const [line] = lines;
    assert.equal(line!.status, 400);
    assert.match(line!.requestBody!, /"code":"\[redacted\]"/);
    assert.ok(!JSON.stringify(lines).includes(code));
    const all = await ctx.db.selectFrom('api_requests').select('request_body').execute();
    assert.ok(!all.some((row) => row.request_body?.includes('redirect_uri":"https://x.example/cb')));
  });

  test('an unauthenticated request is logged nowhere, and another website’s requests never show', async () => {
    const refused = await ctx.app.inject({
      method: 'GET',
      url: PRODUCTS,
      headers: { 'user-agent': 'test', authorization: 'Bearer emp_nope' },
    });
    assert.equal(refused.statusCode, 401);
    const refusedBody = refused.json();
    await other.call({ method: 'GET', url: `${PRODUCTS}?other=1` });
    const mine = await logged(site.websiteId);
    assert.ok(!mine.some((line) => line.path.includes('other=1')));
    assert.ok(mine.every((line) => line.websiteId === site.websiteId));
    const all = await ctx.db.selectFrom('api_requests').select('context_id').execute();
    assert.ok(!all.some((row) => row.context_id === refusedBody.contextId));
  });

  test('the filters: key, app, status class, path prefix, contextId, and pages', async () => {
    const second = await createApiKey(ctx, {
      websiteId: site.websiteId,
      name: 'Second key',
      scopes: SCOPES.join(','),
    });
    const headers = { authorization: `Bearer ${second.apiKey}`, 'user-agent': 'filters' };
    await ctx.app.inject({ method: 'GET', url: '/1.1/commerce/products/nope', headers });
    await ctx.app.inject({ method: 'GET', url: '/1.0/commerce/orders', headers });
    const byKey = await logged(site.websiteId, { apiKeyId: second.id });
    assert.equal(byKey.length, 2);
    assert.ok(byKey.every((line) => line.credential.name === 'Second key'));
    assert.equal(byKey[0]!.path, '/1.0/commerce/orders', 'newest first');
    const notFound = await logged(site.websiteId, { apiKeyId: second.id, statusClass: '4xx' });
    assert.deepEqual(
      notFound.map((line) => line.path),
      ['/1.1/commerce/products/nope'],
    );
    const orders = await logged(site.websiteId, { path: '/1.0/commerce/orders', apiKeyId: second.id });
    assert.equal(orders.length, 1);
    const byApp = await logged(site.websiteId, { app: app.clientId });
    assert.ok(byApp.length >= 3);
    assert.ok(byApp.every((line) => line.credential.id === app.clientId));
    const page1 = await listRequests(ctx.db, site.websiteId, { limit: 2 });
    assert.equal(page1.requests.length, 2);
    const page2 = await listRequests(ctx.db, site.websiteId, { limit: 2, cursor: page1.next });
    assert.ok(page2.requests[0]!.at <= page1.requests[1]!.at);
    assert.notEqual(page2.requests[0]!.id, page1.requests[1]!.id);
  });

  test('the test control answers the log with the token, 401 without', async () => {
    const url = `/_emporium/websites/${site.websiteId}/requests?status=4xx&limit=5`;
    const without = await ctx.app.inject({ method: 'GET', url, headers: { 'user-agent': 't' } });
    assert.equal(without.statusCode, 401);
    const res = await ctx.app.inject({
      method: 'GET',
      url,
      headers: { 'user-agent': 't', authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { requests } = res.json();
    assert.ok(requests.length > 0);
    assert.ok(requests.every((r: { status: number }) => r.status >= 400 && r.status < 500));
    const one = await ctx.app.inject({
      method: 'GET',
      url: `/_emporium/websites/${site.websiteId}/requests/${requests[0].id}`,
      headers: { 'user-agent': 't', authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(one.json().contextId, requests[0].contextId);
    const elsewhere = await ctx.app.inject({
      method: 'GET',
      url: `/_emporium/websites/${other.websiteId}/requests/${requests[0].id}`,
      headers: { 'user-agent': 't', authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(elsewhere.statusCode, 404);
  });
});

describe('the owner page', () => {
  test('shows the site’s log to its owner, with filters and each request whole; 404 for another owner', async () => {
    await site.call({ method: 'GET', url: `${PRODUCTS}?owner=<b>page</b>` });
    const browser = await signedInOwner(ctx, site);
    const sitePage = await browser.get(`/sites/${site.websiteId}`);
    assert.match(sitePage.body, new RegExp(`href="/sites/${site.websiteId}/api-log"`));
    const list = await browser.get(`/sites/${site.websiteId}/api-log`);
    assert.equal(list.statusCode, 200, list.body);
    assert.match(list.body, /API key API key/);
    assert.ok(!list.body.includes('<b>page</b>'), 'escaped');
    assert.match(list.body, /\?owner=(%3Cb%3E|&lt;b&gt;)page/);
    const filtered = await browser.get(`/sites/${site.websiteId}/api-log?status=4xx`);
    assert.doesNotMatch(filtered.body, /\?owner=/);
    const id = /api-log\/(\d+)"/.exec(list.body)?.[1];
    assert.ok(id);
    const one = await browser.get(`/sites/${site.websiteId}/api-log/${id}`);
    assert.equal(one.statusCode, 200);
    assert.match(one.body, /<pre>/);

    const stranger = await signedInOwner(ctx, other);
    assert.equal((await stranger.get(`/sites/${site.websiteId}/api-log`)).statusCode, 404);
    assert.equal((await stranger.get(`/sites/${site.websiteId}/api-log/${id}`)).statusCode, 404);
    assert.equal((await stranger.get(`/sites/${other.websiteId}/api-log/${id}`)).statusCode, 404);
  });
});

describe('retention', () => {
  test('keeps each website’s newest rows, and 7 days by the website’s time', async () => {
    const fresh = await ctx.site();
    const kept = await ctx.site();
    for (let i = 0; i < 5; i++) await fresh.call({ method: 'GET', url: `${PRODUCTS}?n=${i}` });
    await kept.call({ method: 'GET', url: PRODUCTS });
    await ctx.app.apiLog.flush();
    await sweepApiLog(ctx.api, { keepRows: 3 });
    const left = await logged(fresh.websiteId);
    assert.deepEqual(
      left.map((line) => line.path),
      [`${PRODUCTS}?n=4`, `${PRODUCTS}?n=3`, `${PRODUCTS}?n=2`],
    );
    assert.equal((await logged(kept.websiteId)).length, 1);

    ctx.clock.advance(6 * 24 * 3600_000);
    await sweepApiLog(ctx.api);
    assert.equal((await logged(fresh.websiteId)).length, 3, 'six days: kept');
    ctx.clock.advance(24 * 3600_000 + 1000);
    await sweepApiLog(ctx.api);
    assert.equal((await logged(fresh.websiteId)).length, 0, 'past seven days: gone');
  });
});

describe('a log that cannot be written', () => {
  test('loses its lines, counts them, and every response still succeeds', async () => {
    await sql`ALTER TABLE api_requests RENAME TO api_requests_away`.execute(ctx.db);
    try {
      for (let i = 0; i < 3; i++) {
        const res = await site.call({ method: 'GET', url: `${PRODUCTS}?lost=${i}` });
        assert.equal(res.statusCode, 200);
      }
      const before = ctx.app.apiLog.dropped;
      await ctx.app.apiLog.flush();
      assert.equal(ctx.app.apiLog.dropped, before + 3);
    } finally {
      await sql`ALTER TABLE api_requests_away RENAME TO api_requests`.execute(ctx.db);
    }
    const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /emporium_api_log_dropped_total [1-9]/);
    assert.ok(!(await logged(site.websiteId)).some((line) => line.path.includes('lost=')));
  });
});
