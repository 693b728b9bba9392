import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  addFault,
  clearFaults,
  listFaults,
  removeFault,
  type FaultInput,
} from '../src/faults/faults.service.ts';
import { listRequests } from '../src/api-log/requests.service.ts';
import { createApiKey } from '../src/sites/api-keys.service.ts';
import { SCOPES } from '../src/shared/scopes.ts';
import { advanceClock } from '../src/testing/site-clock.ts';
import { freshDatabase } from './helpers/database.ts';
import { apiCall, grantTokens, registerApp, tokenRequest, USER_AGENT } from './helpers/oauth.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

const TOKEN = 'operator-token-for-faults';

let url: string;
let ctx: TestContext;
before(async () => {
  url = await freshDatabase();
  ctx = await testApp({ databaseUrl: url, logLevel: 'info', testControlsToken: TOKEN });
});
after(() => ctx.close());

const add = (websiteId: string, rule: FaultInput) => addFault(ctx.api, websiteId, rule, 'test');
const products = (site: Site) => site.call({ method: 'GET', url: '/1.1/commerce/products' });

/** The rows of a table of the website, to show a refused change wrote nothing. */
async function written(websiteId: string) {
  const rules = await ctx.db
    .selectFrom('fault_rules')
    .selectAll()
    .where('website_id', '=', websiteId)
    .execute();
  const events = await ctx.db
    .selectFrom('audit_events')
    .select('detail')
    .where('website_id', '=', websiteId)
    .where('kind', '=', 'test_control')
    .execute();
  return { rules: rules.length, events: events.length };
}

describe('a status fault', () => {
  test('503 is answered in the API’s error body, on the matching path only', async () => {
    const site = await ctx.site();
    const rule = await add(site.websiteId, { match: 'GET /1.1/commerce/products*', status: 503 });
    const res = await products(site);
    assert.equal(res.statusCode, 503);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['type', 'subtype', 'message', 'details', 'contextId']);
    assert.equal(body.type, 'SERVICE_UNAVAILABLE');
    assert.equal(body.details, null);
    assert.match(body.message, new RegExp(rule.id));
    assert.equal(typeof body.contextId, 'string');
    // Another path, another method: untouched.
    assert.equal((await site.call({ method: 'GET', url: '/1.0/commerce/store_pages' })).statusCode, 200);
  });

  test('the request log marks the answer as an injected fault, and a request the rule spared as none', async () => {
    const site = await ctx.site();
    await add(site.websiteId, { match: 'GET /1.1/commerce/products', status: 503, count: 1 });
    const faulted = await products(site);
    const spared = await products(site);
    assert.deepEqual([faulted.statusCode, spared.statusCode], [503, 200]);
    await ctx.app.apiLog.flush();
    const { requests } = await listRequests(ctx.db, site.websiteId, { path: '/1.1/commerce/products' });
    // Newest first.
    assert.deepEqual(
      requests.map((r) => [r.status, r.fault]),
      [
        [200, null],
        [503, 'status 503'],
      ],
    );
    assert.equal(requests[1]!.contextId, faulted.json().contextId);
  });

  test('429 carries Retry-After; 500, 502 and 504 their status', async () => {
    const site = await ctx.site();
    await add(site.websiteId, { match: '/1.1/commerce/products', status: 429, retryAfter: 30, count: 1 });
    const limited = await products(site);
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '30');
    assert.equal(limited.json().type, 'TOO_MANY_REQUESTS');
    for (const status of [500, 502, 504]) {
      await clearFaults(ctx.api, site.websiteId, 'test');
      await add(site.websiteId, { match: '/1.1/commerce/*', status });
      const res = await products(site);
      assert.equal(res.statusCode, status);
      assert.equal(res.json().type, 'SERVER_ERROR');
    }
  });
});

describe('latency, reset and slow body', () => {
  test('latency: the request waits at least that long on the server, then is answered as usual', async () => {
    const site = await ctx.site();
    await add(site.websiteId, { match: 'GET /1.1/commerce/products', latency: 150 });
    const res = await site.call({ method: 'GET', url: '/1.1/commerce/products', remoteAddress: '10.1.5.0' });
    assert.equal(res.statusCode, 200);
    assert.ok(Array.isArray(res.json().products), 'the handler ran');
    const line = JSON.parse(await ctx.logged((l) => l.includes('"remoteAddress":"10.1.5.0"')));
    assert.ok(line.ms >= 150, `elapsed ${line.ms} ms`);
  });

  test('a latency range draws within it', async () => {
    const site = await ctx.site();
    const rule = await add(site.websiteId, { match: 'GET /1.1/commerce/products', latency: '20..40' });
    assert.deepEqual(rule.latency, { minMs: 20, maxMs: 40 });
    const res = await site.call({ method: 'GET', url: '/1.1/commerce/products', remoteAddress: '10.1.5.1' });
    assert.equal(res.statusCode, 200);
    const line = JSON.parse(await ctx.logged((l) => l.includes('"remoteAddress":"10.1.5.1"')));
    assert.ok(line.ms >= 20, `elapsed ${line.ms} ms`);
  });

  test('reset: the client sees its connection closed without an answer; slow body: the body arrives whole', async () => {
    const listening = await testApp({ databaseUrl: url, logLevel: 'silent' });
    try {
      await listening.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(listening.app.server.address() as AddressInfo).port}`;
      const site = await listening.site();
      const reset = await addFault(
        listening.api,
        site.websiteId,
        { match: '/1.1/commerce/products', reset: true },
        'test',
      );
      await assert.rejects(
        fetch(`${base}/1.1/commerce/products`, { headers: site.headers }),
        (error: Error) => {
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          assert.match(`${cause?.code} ${cause?.message}`, /ECONNRESET|socket|closed|terminated/i);
          return true;
        },
      );
      await removeFault(listening.api, site.websiteId, reset.id, 'test');
      const plain = await (await fetch(`${base}/1.1/commerce/products`, { headers: site.headers })).text();
      await addFault(
        listening.api,
        site.websiteId,
        { match: '/1.1/commerce/products', slowBody: 200 },
        'test',
      );
      const res = await fetch(`${base}/1.1/commerce/products`, { headers: site.headers });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), plain);
    } finally {
      await listening.close();
    }
  });
});

describe('scoping', () => {
  test('another website, another app, another key are not affected; owner pages, storefront and controls never', async () => {
    const site = await ctx.site();
    const other = await ctx.site();
    const app = await registerApp(ctx);
    const otherApp = await registerApp(ctx);
    const tokens = await grantTokens(ctx, app, site.websiteId);
    const otherTokens = await grantTokens(ctx, otherApp, site.websiteId);
    await add(site.websiteId, { match: '/1.1/commerce/products', status: 503, app: app.clientId });
    assert.equal((await apiCall(ctx, tokens.access_token)).statusCode, 503);
    assert.equal((await apiCall(ctx, otherTokens.access_token)).statusCode, 200);
    assert.equal((await products(site)).statusCode, 200, 'an API key is not the app');
    assert.equal((await products(other)).statusCode, 200);

    const second = await createApiKey(ctx.api, { websiteId: site.websiteId, scopes: SCOPES.join(',') });
    await clearFaults(ctx.api, site.websiteId, 'test');
    await add(site.websiteId, { match: '/*', status: 500, apiKey: second.id });
    const withSecond = { authorization: `Bearer ${second.apiKey}`, 'user-agent': USER_AGENT };
    assert.equal(
      (await ctx.app.inject({ url: '/1.1/commerce/products', headers: withSecond })).statusCode,
      500,
    );
    assert.equal((await products(site)).statusCode, 200);
    assert.equal((await apiCall(ctx, tokens.access_token)).statusCode, 200);

    await clearFaults(ctx.api, site.websiteId, 'test');
    await add(site.websiteId, { match: '/*', status: 500 });
    assert.equal((await products(site)).statusCode, 500);
    const control = await ctx.app.inject({
      url: `/_emporium/websites/${site.websiteId}/clock`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(control.statusCode, 200);
    assert.notEqual((await ctx.app.inject({ url: '/sites' })).statusCode, 500, 'owner pages');
    assert.notEqual(
      (await ctx.app.inject({ url: `/store/${site.storePageId}` })).statusCode,
      500,
      'storefront',
    );
    assert.equal((await ctx.app.inject({ url: '/health' })).statusCode < 500, true);
  });

  test('the token endpoint: a rule narrowed to the app fails its token requests; a site-wide rule does not', async () => {
    const site = await ctx.site();
    const app = await registerApp(ctx);
    await add(site.websiteId, { match: '/*', status: 503 });
    const tokens = await grantTokens(ctx, app, site.websiteId, { offline: true });
    await add(site.websiteId, {
      match: 'POST /api/1/login/oauth/*',
      status: 429,
      retryAfter: 5,
      app: app.clientId,
    });
    const refused = await tokenRequest(
      ctx,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      { authorization: app.authorization },
    );
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '5');
    assert.equal(refused.json().error, 'temporarily_unavailable');
  });
});

describe('probability, count and until', () => {
  const outcomes = async (site: Site, n: number) => {
    const seen: number[] = [];
    for (let i = 0; i < n; i++) seen.push((await products(site)).statusCode);
    return seen;
  };

  test('a seed gives the same sequence of faults twice', async () => {
    const first = await ctx.site();
    const second = await ctx.site();
    await add(first.websiteId, { match: '/1.1/*', status: 503, probability: 0.5, seed: 7 });
    await add(second.websiteId, { match: '/1.1/*', status: 503, probability: 0.5, seed: 7 });
    const a = await outcomes(first, 20);
    const b = await outcomes(second, 20);
    assert.deepEqual(a, b);
    assert.ok(a.includes(503) && a.includes(200), a.join(' '));
  });

  test('count: the first N only, shown as what remains', async () => {
    const site = await ctx.site();
    await add(site.websiteId, { match: '/1.1/*', status: 502, count: 2 });
    assert.deepEqual(await outcomes(site, 4), [502, 502, 200, 200]);
    const [rule] = await listFaults(ctx.api, site.websiteId);
    assert.equal(rule!.remaining, 0);
    assert.equal(rule!.count, 2);
  });

  test('until: the rule stops once the site’s clock passes it', async () => {
    const site = await ctx.site();
    const now = ctx.api.clock.now(site.websiteId).getTime();
    await add(site.websiteId, {
      match: '/1.1/*',
      status: 503,
      until: new Date(now + 3_600_000).toISOString(),
    });
    assert.equal((await products(site)).statusCode, 503);
    await advanceClock(ctx.api, site.websiteId, 2 * 3_600_000, 'test');
    assert.equal((await products(site)).statusCode, 200);
  });
});

describe('bad rules', () => {
  test('each is refused, naming the field, and nothing is written', async () => {
    const site = await ctx.site();
    const other = await ctx.site();
    const otherKey = await createApiKey(ctx.api, {
      websiteId: other.websiteId,
      scopes: 'website.orders.read',
    });
    const before = await written(site.websiteId);
    const bad: [FaultInput, RegExp][] = [
      [{ match: '/1.1/*', status: 418 }, /^status:/],
      [{ match: '/1.1/*', status: 503, retryAfter: 3 }, /^retryAfter:/],
      [{ match: '/1.1/*', status: 503, probability: 1.5 }, /^probability:/],
      [{ match: '/1.1/*', status: 503, probability: -0.1 }, /^probability:/],
      [{ match: '/1.1/*', latency: '900..200' }, /^latency:/],
      [{ match: '/1.1/*', latency: 'soon' }, /^latency:/],
      [{ match: '/1.1/*', latency: 0 }, /^latency:/],
      [{ match: '/1.1/*', status: 503, count: 0 }, /^count:/],
      [{ match: '/1.1/*', status: 503, until: '2020-01-01T00:00:00Z' }, /^until:/],
      [{ match: '/1.1/*', status: 503, until: 'tomorrow' }, /^until:/],
      [{ match: '/1.1/*', status: 503, app: 'no-such-client' }, /^app:/],
      [{ match: '/1.1/*', status: 503, apiKey: otherKey.id }, /^apiKey:/],
      [{ match: '/store/*', status: 503 }, /^match:/],
      [{ match: '1.1/*', status: 503 }, /^match:/],
      [{ match: 'FETCH /1.1/*', status: 503 }, /^match:/],
      [{ match: '/1.1/*' }, /^effect:/],
      [{ match: '/1.1/*', status: 503, reset: true }, /^effect:/],
    ];
    for (const [rule, message] of bad) {
      await assert.rejects(add(site.websiteId, rule), (error: Error) => {
        assert.match(error.message, message, JSON.stringify(rule));
        return true;
      });
    }
    await assert.rejects(add('no-such-website', { match: '/1.1/*', status: 503 }), /website not found/);
    assert.deepEqual(await written(site.websiteId), before);
    assert.equal((await products(site)).statusCode, 200);
  });

  test('a pattern that can still reach an API path is taken', async () => {
    const site = await ctx.site();
    const rule = await add(site.websiteId, { match: '/*', latency: 1 });
    assert.equal(rule.match, '/*');
    const [event] = await ctx.db
      .selectFrom('audit_events')
      .select('detail')
      .where('website_id', '=', site.websiteId)
      .where('kind', '=', 'test_control')
      .execute();
    assert.equal((event!.detail as { action: string }).action, 'faults.add');
  });
});

describe('metrics and instances', () => {
  test('/metrics counts injected faults by effect, apart from real errors', async () => {
    const site = await ctx.site();
    await add(site.websiteId, { match: '/1.1/*', status: 503, count: 1 });
    assert.equal((await products(site)).statusCode, 503);
    const text = (await ctx.app.inject({ url: '/metrics' })).body;
    assert.match(text, /emporium_injected_faults_total\{effect="status"\} [1-9]/);
  });

  test('a rule added on one instance applies on another through the change feed', async () => {
    const second = await testApp({ databaseUrl: url, logLevel: 'silent' });
    try {
      const site = await ctx.site();
      const call = () => second.app.inject({ url: '/1.1/commerce/products', headers: site.headers });
      assert.equal((await call()).statusCode, 200);
      const heard = new Promise<void>((resolve) => {
        second.changes!.on('change', (kind: string, key: string) => {
          if (kind === 'fault_rules' && key === site.websiteId) setImmediate(resolve);
        });
      });
      const rule = await add(site.websiteId, { match: '/1.1/*', status: 504 });
      await heard;
      await second.api.faults.reloadWebsite(site.websiteId); // the feed's own reload may still be reading
      assert.equal((await call()).statusCode, 504);
      const removed = new Promise<void>((resolve) => {
        second.changes!.on('change', (kind: string, key: string) => {
          if (kind === 'fault_rules' && key === site.websiteId) resolve();
        });
      });
      await removeFault(ctx.api, site.websiteId, rule.id, 'test');
      await removed;
      await second.api.faults.reloadWebsite(site.websiteId);
      assert.equal((await call()).statusCode, 200);
    } finally {
      await second.close();
    }
  });
});

describe('the test controls', () => {
  test('POST, GET and DELETE /_emporium/websites/{id}/faults, with the operator token only', async () => {
    const site = await ctx.site();
    const path = `/_emporium/websites/${site.websiteId}/faults`;
    const operator = { authorization: `Bearer ${TOKEN}` };
    const rule = { match: 'POST /1.0/commerce/orders*', status: 503 };
    assert.equal((await ctx.app.inject({ method: 'POST', url: path, payload: rule })).statusCode, 401);
    const added = await ctx.app.inject({ method: 'POST', url: path, headers: operator, payload: rule });
    assert.equal(added.statusCode, 201, added.body);
    const refused = await ctx.app.inject({
      method: 'POST',
      url: path,
      headers: operator,
      payload: { match: '/1.1/*', probability: 2, status: 503 },
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().message, /^probability:/);
    const listed = await ctx.app.inject({ url: path, headers: operator });
    assert.deepEqual(
      listed.json().faults.map((f: { id: string }) => f.id),
      [added.json().id],
    );
    const one = await ctx.app.inject({
      method: 'DELETE',
      url: `${path}/${added.json().id}`,
      headers: operator,
    });
    assert.deepEqual(one.json(), { removed: 1 });
    const again = await ctx.app.inject({
      method: 'DELETE',
      url: `${path}/${added.json().id}`,
      headers: operator,
    });
    assert.equal(again.statusCode, 404);
    const all = await ctx.app.inject({ method: 'DELETE', url: path, headers: operator });
    assert.deepEqual(all.json(), { removed: 0 });
    const unknown = await ctx.app.inject({ url: '/_emporium/websites/nope/faults', headers: operator });
    assert.equal(unknown.statusCode, 404);
  });
});
