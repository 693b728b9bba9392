import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { onServer } from '../src/harness-database.ts';
import { startHarness, type Harness } from '../src/harness.ts';

/*
 * The in-process harness behind @emporium/testing, on the test run's PostgreSQL server (its
 * embedded default is proven by the package's own tests, in a process of their own).
 */

const server = process.env.EMPORIUM_TEST_SERVER!;

async function api(harness: Harness, path: string, token: string, init: RequestInit = {}) {
  const res = await fetch(new URL(path, harness.url), {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'user-agent': 'harness-test', ...init.headers },
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
}

async function databaseExists(name: string): Promise<boolean> {
  const { rows } = await onServer(server, `SELECT 1 FROM pg_database WHERE datname = '${name}'`);
  return rows.length === 1;
}

describe('an instance started in the test process', () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ databaseUrl: server });
  });
  after(() => harness.stop());

  test('answers on 127.0.0.1 with a site and an API key of the chosen scopes', async () => {
    assert.match(harness.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const site = await harness.createSite({ title: 'Harness Shop', currency: 'EUR' });
    const key = await harness.createApiKey(site.websiteId, ['website.products.read']);
    const info = await api(harness, '/1.0/authorization/website', key);
    assert.equal(info.status, 200);
    assert.equal(info.body.title, 'Harness Shop');
    assert.equal(info.body.currency, 'EUR');
    const write = await api(harness, '/1.1/commerce/products', key, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(write.status, 403, 'a read-only key cannot write');
  });

  test('connects an app through the authorization and consent pages, and its token works', async () => {
    const site = await harness.createSite();
    const app = await harness.registerApp({ name: 'Stock Sync' });
    const connection = await harness.connect(app, site.websiteId, {
      scopes: ['website.orders.read', 'website.inventory.read'],
    });
    assert.match(connection.code, /\S/);
    const tokens = connection.tokens!;
    assert.equal(typeof tokens.access_token, 'string');
    assert.equal(typeof tokens.refresh_token, 'string', 'offline by default');
    const orders = await api(harness, '/1.0/commerce/orders', String(tokens.access_token));
    assert.equal(orders.status, 200);
    const products = await api(harness, '/1.1/commerce/products', String(tokens.access_token));
    assert.equal(products.status, 403, 'a scope the owner did not grant stays refused');
  });

  test('stops at the code for an app that redeems it, and refuses what the flow refuses', async () => {
    const site = await harness.createSite();
    const app = await harness.registerApp();
    const { code, tokens, state } = await harness.connect(app, site.websiteId, {
      codeOnly: true,
      offline: false,
      state: 'abc',
    });
    assert.equal(tokens, undefined);
    assert.equal(state, 'abc');
    assert.match(code, /\S/);
    await assert.rejects(
      harness.connect(app, site.websiteId, { scopes: ['website.everything'] }),
      /scopes: unknown scope "website.everything"/,
    );
    const elsewhere = { ...app, redirectUri: 'http://127.0.0.1/not-registered' };
    await assert.rejects(harness.connect(elsewhere, site.websiteId), /authorization request was refused/);
  });

  test('approve() answers an authorization URL the app made itself: its state, its PKCE, its callback', async () => {
    const site = await harness.createSite();
    const app = await harness.registerApp({ redirectUri: 'http://127.0.0.1:3999/callback' });
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = new URL('/api/1/login/oauth/provider/authorize', harness.url);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      scope: 'website.products.read',
      state: 'app-state-1',
      access_type: 'offline',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const back = new URL(await harness.approve(url.href, site.websiteId));
    assert.equal(`${back.origin}${back.pathname}`, app.redirectUri);
    assert.equal(back.searchParams.get('state'), 'app-state-1');
    const res = await fetch(new URL('/api/1/login/oauth/provider/tokens', harness.url), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
        'content-type': 'application/json',
        'user-agent': 'harness-test',
      },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code'),
        redirect_uri: app.redirectUri,
        code_verifier: verifier,
      }),
    });
    assert.equal(res.status, 200, 'the app redeems the code with its own verifier');
    const denied = new URL(await harness.approve(url.href, site.websiteId, { decision: 'deny' }));
    assert.equal(denied.searchParams.get('error'), 'access_denied');
  });

  test('reset() without a snapshot goes back to an empty instance', async () => {
    const site = await harness.createSite();
    const key = await harness.createApiKey(site.websiteId);
    await harness.reset();
    assert.equal((await api(harness, '/1.0/authorization/website', key)).status, 401, 'the key went too');
  });

  test('reset() after snapshot() goes back to the snapshot, at the same address', async () => {
    const site = await harness.createSite();
    const key = await harness.createApiKey(site.websiteId);
    const url = harness.url;
    await harness.snapshot();
    const created = await api(harness, '/1.1/commerce/products', key, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'PHYSICAL',
        storePageId: site.storePageId,
        name: 'Kept only until reset',
        variants: [{ sku: 'R-1', pricing: { basePrice: { currency: 'USD', value: '5.00' } } }],
      }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // Read before the reset, so the instance holds the list and the product in its caches.
    assert.equal(((await api(harness, '/1.1/commerce/products', key)).body.products as unknown[]).length, 1);
    assert.equal((await api(harness, `/1.1/commerce/products/${created.body.id}`, key)).status, 200);
    await harness.reset();
    assert.equal(harness.url, url, 'the same address after a reset');
    const list = await api(harness, '/1.1/commerce/products', key);
    assert.equal(list.status, 200, 'the site and its key came back with the snapshot');
    assert.deepEqual(list.body.products, []);
    assert.equal((await api(harness, `/1.1/commerce/products/${created.body.id}`, key)).status, 404);
  });
});

test('two instances side by side keep their data apart, and stop() drops the database', async () => {
  const [one, two] = await Promise.all([
    startHarness({ databaseUrl: server }),
    startHarness({ databaseUrl: server }),
  ]);
  try {
    assert.notEqual(one.url, two.url);
    const site = await one.createSite();
    const key = await one.createApiKey(site.websiteId);
    assert.equal((await api(one, '/1.0/authorization/website', key)).status, 200);
    assert.equal((await api(two, '/1.0/authorization/website', key)).status, 401);
  } finally {
    await two.stop();
  }
  const database = (one as unknown as { database: string }).database;
  assert.ok(await databaseExists(database));
  await one.stop();
  assert.equal(await databaseExists(database), false);
});

test('an instance started with a fixture holds its site, and reset() goes back to it', async () => {
  const harness = await startHarness({
    databaseUrl: server,
    fixture: {
      website: { title: 'Fixture Shop', currency: 'USD' },
      apiKeys: [{ name: 'suite', scopes: ['website.products'] }],
      products: [
        {
          type: 'PHYSICAL',
          name: 'Linen Apron',
          variants: [
            {
              sku: 'APRON-1',
              pricing: { basePrice: { currency: 'USD', value: '30.00' } },
              stock: { quantity: 3 },
            },
          ],
        },
      ],
    },
  });
  try {
    const site = harness.site!;
    const key = site.apiKeys[0]!.apiKey;
    const names = async () =>
      ((await api(harness, '/1.1/commerce/products', key)).body.products as { name: string }[]).map(
        (p) => p.name,
      );
    assert.deepEqual(await names(), ['Linen Apron']);
    await harness.trigger('product.create', site.websiteId, { name: 'Made in the test' });
    assert.deepEqual((await names()).sort(), ['Linen Apron', 'Made in the test']);
    await harness.reset();
    assert.deepEqual(await names(), ['Linen Apron']);
    const app = await harness.registerApp();
    assert.ok(
      (await harness.connect(app, site.websiteId)).tokens,
      "the fixture site's owner can connect apps",
    );
  } finally {
    await harness.stop();
  }
});
