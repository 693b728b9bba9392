import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startEmporium, type EmporiumInstance } from '@emporium/testing';

/*
 * The package as an app's node:test suite uses it: the built package, a database server of this
 * test process's own (or DATABASE_URL's), the API over HTTP.
 */

async function call(store: EmporiumInstance, path: string, token: string, body?: unknown) {
  // A write carries an Idempotency-Key, which order imports require.
  const res = await fetch(new URL(path, store.url), {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': 'testing-package-test',
      ...(body === undefined
        ? {}
        : { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
}

// On DATABASE_URL's server when it is set (CI's second pass), on the embedded one otherwise.
describe('startEmporium() with sites, apps, webhooks and reset', () => {
  let store: EmporiumInstance;
  before(async () => {
    store = await startEmporium({ databaseUrl: process.env.DATABASE_URL });
  });
  after(() => store.stop());

  test('a site with an API key of the chosen scopes answers the API', async () => {
    const site = await store.createSite({ title: 'Node Test Shop', scopes: ['website.products.read'] });
    const products = await call(store, '/1.1/commerce/products', site.apiKey);
    assert.equal(products.status, 200);
    assert.deepEqual(products.body.products, []);
    const refused = await call(store, '/1.0/commerce/orders', site.apiKey);
    assert.equal(refused.status, 403, 'a scope the key lacks is refused');
  });

  test('requests() reads the site’s request log: newest first, the credential named, secrets redacted', async () => {
    const site = await store.createSite({ scopes: ['website.products.read'] });
    await call(store, '/1.1/commerce/products?pageSize=2', site.apiKey);
    await call(store, '/1.0/commerce/orders', site.apiKey);
    const [refused, listed] = await store.requests(site.websiteId);
    assert.equal(refused?.path, '/1.0/commerce/orders');
    assert.equal(refused?.status, 403);
    assert.equal(listed?.path, '/1.1/commerce/products?pageSize=2');
    assert.equal(listed?.credential.kind, 'api_key');
    assert.equal(listed?.credential.name, 'test');
    assert.ok(!JSON.stringify([refused, listed]).includes(site.apiKey));
    assert.deepEqual(
      (await store.requests(site.websiteId, { status: '4xx' })).map((r) => r.path),
      ['/1.0/commerce/orders'],
    );
  });

  test('an app connected through consent hears of a real order and reads it with its token', async () => {
    const site = await store.createSite({ scopes: ['website.products', 'website.orders'] });
    const app = await store.registerApp({ name: 'Order Notifier' });
    const { tokens } = await store.connect(app, site.websiteId, { scopes: ['website.orders.read'] });
    const hooks = await store.webhookReceiver();
    const subscription = await hooks.subscribe(tokens!.access_token, ['order.create']);
    assert.equal(subscription.endpointUrl, hooks.url);

    const product = await call(store, '/1.1/commerce/products', site.apiKey, {
      type: 'PHYSICAL',
      storePageId: site.storePageId,
      name: 'Enamel Pin',
      variants: [
        { sku: 'PIN-1', pricing: { basePrice: { currency: 'USD', value: '9.00' } }, stock: { quantity: 5 } },
      ],
    });
    assert.equal(product.status, 201, JSON.stringify(product.body));
    const placed = await call(store, '/1.0/commerce/orders', site.apiKey, {
      channelName: 'Test POS',
      externalOrderReference: 'POS-1',
      createdOn: new Date().toISOString(),
      customerEmail: 'buyer@example.com',
      priceTaxInterpretation: 'EXCLUSIVE',
      lineItems: [
        {
          lineItemType: 'PHYSICAL_PRODUCT',
          variantId: (product.body.variants as { id: string }[])[0]!.id,
          quantity: 2,
          unitPricePaid: { currency: 'USD', value: '9.00' },
        },
      ],
      subtotal: { currency: 'USD', value: '18.00' },
      grandTotal: { currency: 'USD', value: '18.00' },
      fulfillments: [],
    });
    assert.equal(placed.status, 201, JSON.stringify(placed.body));

    const notification = await hooks.next('order.create');
    assert.equal(notification.websiteId, site.websiteId);
    assert.equal(notification.data.orderId, placed.body.id);
    const order = await call(
      store,
      `/1.0/commerce/orders/${notification.data.orderId}`,
      tokens!.access_token,
    );
    assert.equal(order.status, 200);
    assert.equal(order.body.customerEmail, 'buyer@example.com');
    assert.deepEqual(hooks.rejected, []);
  });

  test('trigger() makes real orders and uninstalls; the app hears each and finds what it names', async () => {
    const site = await store.createSite();
    const app = await store.registerApp();
    const { tokens } = await store.connect(app, site.websiteId, { scopes: ['website.orders.read'] });
    const hooks = await store.webhookReceiver();
    await hooks.subscribe(tokens!.access_token, ['order.create', 'extension.uninstall']);

    await store.trigger('product.create', site.websiteId, { sku: 'MUG-1' });
    const placed = await store.trigger('order.create', site.websiteId, { sku: 'MUG-1', quantity: 2 });
    assert.equal(placed.notifications.queued, 1);
    const notification = await hooks.next('order.create');
    assert.equal(notification.data.orderId, placed.changed.orderId);
    const order = await call(store, `/1.0/commerce/orders/${placed.changed.orderId}`, tokens!.access_token);
    assert.equal(order.status, 200);

    await store.trigger('extension.uninstall', site.websiteId, { clientId: app.clientId });
    assert.equal((await hooks.next('extension.uninstall')).websiteId, site.websiteId);
    assert.equal((await call(store, '/1.0/commerce/orders', tokens!.access_token)).status, 401);
    await assert.rejects(store.trigger('order.teleport', site.websiteId), /unknown topic "order.teleport"/);
  });

  test('emails() reads what the store sent: the confirmation of a triggered order, then its cancellation notice', async () => {
    const site = await store.createSite();
    await store.trigger('product.create', site.websiteId, { sku: 'MAIL-1' });
    const placed = await store.trigger('order.create', site.websiteId, {
      sku: 'MAIL-1',
      email: 'buyer@example.com',
    });
    const orderId = String(placed.changed.orderId);
    const [confirmation, ...more] = await store.emails(site.websiteId);
    assert.equal(more.length, 0);
    assert.equal(confirmation!.kind, 'order_confirmation');
    assert.equal(confirmation!.to, 'buyer@example.com');
    assert.equal(confirmation!.orderId, orderId);
    assert.equal(confirmation!.status, 'NOT_SENT');
    assert.ok(confirmation!.createdOn instanceof Date);
    assert.match(confirmation!.text, new RegExp(`#${placed.changed.orderNumber}`));
    await store.trigger('order.update', site.websiteId, { orderId, action: 'CANCELED' });
    const notices = await store.emails(site.websiteId, { kind: 'cancellation_notice', orderId });
    assert.equal(notices.length, 1);
    assert.deepEqual(await store.emails(site.websiteId, { to: 'nobody@example.com' }), []);
  });

  test("advanceClock() moves a site's time ahead: its access token expires, its refresh token still works", async () => {
    const site = await store.createSite();
    const app = await store.registerApp();
    const { tokens } = await store.connect(app, site.websiteId, { scopes: ['website.products.read'] });
    assert.equal((await call(store, '/1.1/commerce/products', tokens!.access_token)).status, 200);

    const before = await store.siteTime(site.websiteId);
    const moved = await store.advanceClock(site.websiteId, '31m');
    assert.equal(moved.websiteId, site.websiteId);
    assert.equal(moved.shiftMs - before.shiftMs, 31 * 60_000);
    assert.ok(moved.now instanceof Date && moved.now.getTime() - Date.now() > 30 * 60_000);
    assert.equal(
      (await call(store, '/1.1/commerce/products', tokens!.access_token)).status,
      401,
      'the access token lasts 30 minutes of the site’s time',
    );

    const refreshed = await fetch(new URL('/api/1/login/oauth/provider/tokens', store.url), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
        'user-agent': 'testing-package-test',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens!.refresh_token! }),
    });
    const pair = (await refreshed.json()) as { access_token: string };
    assert.equal(refreshed.status, 200, JSON.stringify(pair));
    assert.equal((await call(store, '/1.1/commerce/products', pair.access_token)).status, 200);

    await assert.rejects(store.advanceClock(site.websiteId, '-1h'), /by: "-1h" is not a duration/);
    assert.equal(
      (await store.siteTime(site.websiteId)).shiftMs,
      moved.shiftMs,
      'a refused move changes nothing',
    );
    const overHttp = await fetch(new URL(`/_emporium/websites/${site.websiteId}/clock`, store.url), {
      headers: { authorization: `Bearer ${store.testControlsToken}` },
    });
    assert.equal(((await overHttp.json()) as { shiftMs: number }).shiftMs, moved.shiftMs);
  });

  test('loadFixture() makes a whole site from a document, and names where a bad one is wrong', async () => {
    const loaded = await store.loadFixture({
      website: { title: 'Fixture Shop' },
      apiKeys: [{ name: 'suite', scopes: ['website.products.read'] }],
      products: [
        {
          type: 'PHYSICAL',
          name: 'Tea Towel',
          variants: [{ sku: 'TOWEL-1', pricing: { basePrice: { currency: 'USD', value: '8.00' } } }],
        },
      ],
    });
    const list = await call(store, '/1.1/commerce/products', loaded.apiKeys[0]!.apiKey);
    assert.deepEqual(
      (list.body.products as { name: string }[]).map((p) => p.name),
      ['Tea Towel'],
    );
    await assert.rejects(
      store.loadFixture({
        website: { title: 'Bad' },
        products: [{ type: 'PHYSICAL', name: 'X', variants: 'none' }],
      }),
      /products\[0\]\.variants/,
    );
  });

  test("approve() answers the app's own authorization URL, Allow or Deny", async () => {
    const site = await store.createSite();
    const app = await store.registerApp();
    const url = `${store.url}/api/1/login/oauth/provider/authorize?${new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: app.redirectUri,
      scope: 'website.orders.read',
      state: 'mine',
    })}`;
    const allowed = new URL(await store.approve(url, site.websiteId));
    assert.equal(allowed.searchParams.get('state'), 'mine');
    assert.match(allowed.searchParams.get('code') ?? '', /\S/);
    const denied = new URL(await store.approve(url, site.websiteId, { decision: 'deny' }));
    assert.equal(denied.searchParams.get('error'), 'access_denied');
  });

  test('reset() empties it: the sites and keys made before are gone', async () => {
    const site = await store.createSite();
    await store.reset();
    assert.equal((await call(store, '/1.0/authorization/website', site.apiKey)).status, 401);
  });
});

test('a second instance of the process starts on the same server, apart from the first', async () => {
  const [one, two] = await Promise.all([startEmporium(), startEmporium()]);
  try {
    const site = await one.createSite();
    assert.equal((await call(one, '/1.0/authorization/website', site.apiKey)).status, 200);
    assert.equal((await call(two, '/1.0/authorization/website', site.apiKey)).status, 401);
  } finally {
    await Promise.all([one.stop(), two.stop()]);
  }
});

test(
  'the first embedded start clears what a killed test process left',
  { skip: Boolean(process.env.DATABASE_URL) },
  async () => {
    // A folder of a harness process that is gone (no process has id 2^22 - 1 on Linux, whose
    // highest is 2^22), with a lock file naming a postmaster that is no longer there.
    const left = path.join(os.tmpdir(), `emporium-harness-4194305-${process.pid}`);
    fs.mkdirSync(path.join(left, 'postgres'), { recursive: true });
    fs.writeFileSync(path.join(left, 'postgres', 'postmaster.pid'), '4194305\n');
    // This file's instances already started the process's server; a new process starts its own.
    const { execFile } = await import('node:child_process');
    const code = `import { startEmporium } from '@emporium/testing'; const s = await startEmporium(); await s.stop();`;
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--input-type=module', '-e', code],
        { cwd: path.dirname(import.meta.dirname) },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    assert.equal(fs.existsSync(left), false);
  },
);
