import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, ConfigError } from '../src/config.ts';
import { fixtureOwner, richFixture } from './helpers/fixtures.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

const TOKEN = 'emp_test_a-token-for-these-tests-only';
const HOUR = 3_600_000;

let ctx: TestContext;
before(async () => {
  // Info: the log is read for the token. A worker: fixtures queue their pictures' processing.
  ctx = await testApp({ logLevel: 'info', testControlsToken: TOKEN, imageWorkers: 1 });
});
after(() => ctx.close());

function control(
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
  token: string | null = TOKEN,
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method,
    url,
    headers: {
      'user-agent': 'test-suite',
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...(payload !== undefined && { 'content-type': 'application/json' }),
    },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
}

function assertError(res: LightMyRequestResponse, status: number, message?: RegExp) {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['contextId', 'details', 'message', 'subtype', 'type']);
  if (message) assert.match(body.message, message);
}

async function controlEvents(websiteId: string) {
  return ctx.db
    .selectFrom('audit_events')
    .select('detail')
    .where('website_id', '=', websiteId)
    .where('kind', '=', 'test_control')
    .execute();
}

describe('test controls over HTTP', () => {
  test('TC-2 without the operator token, or with another, a control answers 401 and does nothing', async () => {
    const site = await ctx.site();
    for (const token of [null, 'emp_test_not-the-token-at-all', site.apiKey]) {
      const res = await control(
        'POST',
        `/_emporium/websites/${site.websiteId}/clock/advance`,
        { by: '1h' },
        token,
      );
      assertError(res, 401, /test controls token/);
      assert.match(String(res.headers['www-authenticate']), /emporium test controls/);
    }
    assert.equal(ctx.api.clock.shiftOf(site.websiteId), 0);
    assert.deepEqual(await controlEvents(site.websiteId), []);
  });

  test('TC-2 the operator token never reaches the log', async () => {
    const site = await ctx.site();
    ctx.logs.length = 0;
    await control('GET', `/_emporium/websites/${site.websiteId}/clock`);
    await control('GET', `/_emporium/websites/${site.websiteId}/clock`, undefined, `${TOKEN}x`);
    assert.ok(ctx.logs.length > 0);
    assert.ok(!ctx.logs.join('').includes(TOKEN.slice(9)));
  });

  test('the clock: shown, moved ahead with a duration, refused backwards or malformed', async () => {
    const site = await ctx.site();
    const before = await control('GET', `/_emporium/websites/${site.websiteId}/clock`);
    assert.equal(before.statusCode, 200, before.body);
    assert.equal(before.json().shiftMs, 0);

    const moved = await control('POST', `/_emporium/websites/${site.websiteId}/clock/advance`, { by: '2d' });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().shiftMs, 48 * HOUR);
    assert.equal(Date.parse(moved.json().now) - Date.parse(before.json().now) >= 48 * HOUR, true);
    assert.equal(ctx.api.clock.shiftOf(site.websiteId), 48 * HOUR);

    for (const by of ['-1h', '0s', 'tomorrow', '']) {
      const res = await control('POST', `/_emporium/websites/${site.websiteId}/clock/advance`, { by });
      assertError(res, 400, /^by/);
    }
    assertError(
      await control('POST', `/_emporium/websites/${site.websiteId}/clock/advance`, { by: '1h', extra: 1 }),
      400,
    );
    assertError(
      await control('POST', '/_emporium/websites/000000000000000000000000/clock/advance', { by: '1h' }),
      404,
    );
    assert.equal(ctx.api.clock.shiftOf(site.websiteId), 48 * HOUR);
  });

  test('TC-3 a trigger makes the real change, and the control is a security event of the site', async () => {
    const site = await ctx.site();
    const res = await control('POST', `/_emporium/websites/${site.websiteId}/triggers/product.create`, {
      name: 'Triggered over HTTP',
    });
    assert.equal(res.statusCode, 200, res.body);
    const { changed } = res.json();
    const product = await ctx.app.inject({
      method: 'GET',
      url: `/1.1/commerce/products/${changed.productId}`,
      headers: { authorization: `Bearer ${site.apiKey}`, 'user-agent': 'test-suite' },
    });
    assert.equal(product.statusCode, 200, product.body);
    assert.equal(product.json().products[0].name, 'Triggered over HTTP');
    assert.deepEqual(await controlEvents(site.websiteId), [
      { detail: { action: 'trigger', topic: 'product.create', via: 'http' } },
    ]);
  });

  test('a trigger of an unknown topic, with an option its topic does not take, or for no site, is refused', async () => {
    const site = await ctx.site();
    assertError(
      await control('POST', `/_emporium/websites/${site.websiteId}/triggers/order.explode`, {}),
      400,
      /unknown topic/,
    );
    assertError(
      await control('POST', `/_emporium/websites/${site.websiteId}/triggers/product.create`, {
        orderId: 'x',
      }),
      400,
      /orderId/,
    );
    assertError(
      await control('POST', '/_emporium/websites/000000000000000000000000/triggers/product.create', {}),
      404,
    );
    assert.deepEqual(await controlEvents(site.websiteId), []);
  });

  test('TC-3 a fixture loads into a new site and exports back, each a security event', async () => {
    const owner = await fixtureOwner(ctx);
    const loaded = await control(
      'POST',
      `/_emporium/fixtures?owner=${encodeURIComponent(owner)}`,
      richFixture(),
    );
    assert.equal(loaded.statusCode, 201, loaded.body);
    const { websiteId } = loaded.json();
    const exported = await control('GET', `/_emporium/websites/${websiteId}/fixture`);
    assert.equal(exported.statusCode, 200, exported.body);
    assert.equal(exported.json().website.title, 'Fixture Pottery');
    const actions = (await controlEvents(websiteId)).map((event) => event.detail.action).sort();
    assert.deepEqual(actions, ['fixtures.export', 'fixtures.load']);
  });

  test('TC-4 a fixture over HTTP may not read a file of the server, and a malformed one names its first mistake; nothing is written', async () => {
    const owner = await fixtureOwner(ctx);
    const count = async () => (await ctx.db.selectFrom('websites').select('id').execute()).length;
    const before = await count();
    const withFile = richFixture();
    withFile.products![0]!.images = [{ file: '/etc/passwd' }];
    assertError(
      await control('POST', `/_emporium/fixtures?owner=${encodeURIComponent(owner)}`, withFile),
      400,
      /^products\[0\]\.images\[0\]\.file/,
    );
    const malformed = { ...richFixture(), website: { title: 7 } };
    assertError(
      await control('POST', `/_emporium/fixtures?owner=${encodeURIComponent(owner)}`, malformed),
      400,
      /website\.title/,
    );
    assertError(await control('POST', '/_emporium/fixtures?owner=nobody%40example.com', richFixture()), 404);
    assert.equal(await count(), before);
  });
});

describe('TC-1 when the test controls are served', () => {
  test('off: their paths answer 404 as any unknown path', async () => {
    const off = await testApp({ logLevel: 'silent' });
    try {
      const site = await off.site();
      const res = await off.app.inject({
        method: 'POST',
        url: `/_emporium/websites/${site.websiteId}/clock/advance`,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'user-agent': 't' },
        payload: '{"by":"1h"}',
      });
      assertError(res, 404);
    } finally {
      await off.close();
    }
  });

  test('on by default with the embedded database only; TEST_CONTROLS decides otherwise; a short token is refused', () => {
    assert.equal(loadConfig({}).testControls, true);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://db.example/shop' }).testControls, false);
    assert.equal(
      loadConfig({ DATABASE_URL: 'postgres://db.example/shop', TEST_CONTROLS: 'true' }).testControls,
      true,
    );
    assert.equal(loadConfig({ TEST_CONTROLS: 'false' }).testControls, false);
    assert.throws(() => loadConfig({ TEST_CONTROLS_TOKEN: 'short' }), ConfigError);
  });
});
