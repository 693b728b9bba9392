import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { revokeAccess } from '../src/oauth/revocation.ts';
import { attemptDelivery } from '../src/webhooks/delivery.ts';
import { sweepDeliveries } from '../src/webhooks/delivery-sweep.ts';
import { sql } from 'kysely';
import { TestBrowser } from './helpers/browser.ts';
import { createOrder } from '../src/orders/orders.service.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { customLine, importBody, importOrder, nativeDraft } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import {
  assertSigned,
  connectApp,
  Receiver,
  signatureOf,
  until,
  type ConnectedApp,
  type Answer,
  type Received,
} from './helpers/webhooks.ts';

const PATH = '/1.0/webhook_subscriptions';
const HOUR = 60 * 60 * 1000;

let ctx: TestContext;
let receiver: Receiver;
/** The wait before a retry; none by default, so retries come at once. */
let retryDelay = 0;

before(async () => {
  ctx = await testApp({
    logLevel: 'silent',
    webhookWorkers: 1,
    webhooks: { retryDelayMs: () => retryDelay, timeoutMs: 300 },
  });
  receiver = await new Receiver().start();
});
afterEach(() => {
  retryDelay = 0;
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

/** A connected app subscribed to `topics` at the receiver; a fresh receiver count per test. */
async function subscribed(topics: string[], app?: ConnectedApp) {
  const connected = app ?? (await connectApp(ctx, ['website.products', 'website.orders']));
  const res = await connected.call('POST', PATH, { endpointUrl: receiver.url, topics });
  assert.equal(res.statusCode, 201, res.body);
  return { ...connected, subscription: res.json() as { id: string; secret: string } };
}

function delivery(id: string) {
  return ctx.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

function attempts(id: string) {
  return ctx.db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', id)
    .orderBy('attempt')
    .execute();
}

/** The receiver's next `count` requests after those it already has. */
function next(count = 1): Promise<Received[]> {
  const seen = receiver.received.length;
  return receiver.got(seen + count).then((all) => all.slice(seen));
}

describe('notifications of catalog changes (an Emporium extension)', () => {
  test('product.create, product.update and product.delete reach the receiver, signed, whoever made the change', async () => {
    const app = await subscribed(['product.create', 'product.update', 'product.delete']);
    // The change is made with the site's API key, not by the app: the app still hears of it.
    const site = app.site;
    let arriving = next();
    const product = await createProduct(
      site,
      physical(site, {
        variantAttributes: ['Size'],
        variants: [variant('NOTE-1', { attributes: { Size: 'S' } })],
      }),
    );
    const [created] = await arriving;
    assert.ok(created);
    assert.deepEqual(Object.keys(created.json), [
      'id',
      'websiteId',
      'subscriptionId',
      'topic',
      'createdOn',
      'data',
    ]);
    assert.equal(created.json.topic, 'product.create');
    assert.equal(created.json.websiteId, site.websiteId);
    assert.equal(created.json.subscriptionId, app.subscription.id);
    assert.deepEqual(created.json.data, { productId: product.id });
    assert.match(created.json.createdOn, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(created.headers['content-type'], 'application/json');
    assert.match(String(created.headers['user-agent']), /^Emporium-Webhooks\//);
    assertSigned(created, app.subscription.secret);

    arriving = next();
    const renamed = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${product.id}`,
      payload: { name: 'Renamed' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const [updated] = await arriving;
    assert.equal(updated?.json.topic, 'product.update');
    assert.deepEqual(updated?.json.data, { productId: product.id });

    arriving = next();
    const added = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${product.id}/variants`,
      payload: variant('NOTE-2', { attributes: { Size: 'M' } }),
    });
    assert.equal(added.statusCode, 201, added.body);
    // A variant change is a change of its product.
    assert.equal((await arriving)[0]?.json.topic, 'product.update');

    arriving = next();
    assert.equal(
      (await site.call({ method: 'DELETE', url: `/1.1/commerce/products/${product.id}` })).statusCode,
      204,
    );
    const [deleted] = await arriving;
    assert.equal(deleted?.json.topic, 'product.delete');
    assertSigned(deleted!, app.subscription.secret);
    assert.notEqual(deleted?.json.id, created.json.id);
  });

  test('a SERVICE product made, changed and deleted through v2 is heard of the same way', async () => {
    const app = await subscribed(['product.create', 'product.update', 'product.delete']);
    const site = app.site;
    const url = '/v2/commerce/products';
    let arriving = next();
    const made = await site.call({
      method: 'POST',
      url,
      payload: {
        type: 'SERVICE',
        storePageId: site.storePageId,
        name: 'Fitting',
        variants: [{ sku: 'FITTING-1', pricing: { basePrice: { currency: 'USD', value: '20' } } }],
      },
    });
    assert.equal(made.statusCode, 201, made.body);
    const productId = made.json().id;
    assert.deepEqual((await arriving)[0]?.json.data, { productId });
    assert.equal((await arriving)[0]?.json.topic, 'product.create');
    arriving = next();
    const changed = await site.call({
      method: 'POST',
      url: `${url}/${productId}`,
      payload: { seoData: { title: 'T' } },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal((await arriving)[0]?.json.topic, 'product.update');
    arriving = next();
    assert.equal((await site.call({ method: 'DELETE', url: `${url}/${productId}` })).statusCode, 204);
    const [deleted] = await arriving;
    assert.equal(deleted?.json.topic, 'product.delete');
    assert.deepEqual(deleted?.json.data, { productId });
  });

  test('an app subscribed to other topics hears nothing of them', async () => {
    const app = await subscribed(['order.create']);
    const before = await ctx.db.selectFrom('webhook_deliveries').select('id').execute();
    await createProduct(app.site, physical(app.site, { variants: [variant('QUIET-1')] }));
    const after = await ctx.db.selectFrom('webhook_deliveries').select('id').execute();
    assert.equal(after.length, before.length);
  });
});

/**
 * A product.create notification whose first attempt got `answers[0]` (500 by default), its retry
 * an hour away, so the test makes the next attempts itself.
 */
async function failedOnce(sku: string, ...answers: Answer[]) {
  const app = await subscribed(['product.create']);
  receiver.answer(...(answers.length ? answers : [500]));
  retryDelay = HOUR;
  const first = next();
  await createProduct(app.site, physical(app.site, { variants: [variant(sku)] }));
  const [received] = await first;
  const id = received!.json.id;
  await until(
    () => delivery(id),
    (d) => d.attempts === 1 && d.leased_until === null,
    'the first attempt',
  );
  return { app, id, received: received! };
}

describe('order notifications', () => {
  test('order.create for every new order whatever its channel, order.update FULFILLED for a fulfillment, signed', async () => {
    const app = await subscribed(['order.create', 'order.update']);
    const site = app.site;
    let arriving = next(2);
    const imported = await importOrder(site, importBody([customLine('Poster')]));
    assert.equal(imported.statusCode, 201, imported.body);
    const native = await createOrder(ctx.api, site.websiteId, nativeDraft(ctx.clock.now()));
    const created = await arriving;
    // Delivered in either order: compared as sorted text (arrays of objects sort as equal strings).
    const notice = (topic: string, data: unknown) => `${topic} ${JSON.stringify(data)}`;
    assert.deepEqual(
      created.map((r) => notice(r.json.topic, r.json.data)).sort(),
      [
        notice('order.create', { orderId: imported.json().id }),
        notice('order.create', { orderId: native.order.id }),
      ].sort(),
    );
    for (const r of created) {
      assert.match(r.json.id, /^[0-9a-f]{24}$/);
      assert.equal(r.json.subscriptionId, app.subscription.id);
      assertSigned(r, app.subscription.secret);
    }

    arriving = next();
    const fulfilled = await app.call('POST', `/1.0/commerce/orders/${imported.json().id}/fulfillments`, {
      shipments: [],
    });
    assert.equal(fulfilled.statusCode, 204, fulfilled.body);
    const [update] = await arriving;
    assert.equal(update!.json.topic, 'order.update');
    assert.deepEqual(update!.json.data, { orderId: imported.json().id, update: 'FULFILLED' });
    assertSigned(update!, app.subscription.secret);
  });
});

describe('delivery', () => {
  test('a failed attempt is retried with the same id and bytes until a 2xx; every attempt is recorded; redirects are not followed', async () => {
    const app = await subscribed(['product.create']);
    receiver.answer(500, 302, 'hang');
    const arriving = next(4);
    await createProduct(app.site, physical(app.site, { variants: [variant('RETRY-1')] }));
    const got = await arriving;
    assert.equal(new Set(got.map((r) => r.json.id)).size, 1);
    assert.equal(new Set(got.map((r) => r.raw.toString('hex'))).size, 1);
    for (const r of got) assertSigned(r, app.subscription.secret);

    const id = got[0]!.json.id;
    const done = await until(
      () => delivery(id),
      (d) => d.status !== 'PENDING',
      'the delivery to end',
    );
    assert.equal(done.status, 'DELIVERED');
    assert.equal(done.attempts, 4);
    const recorded = await attempts(id);
    assert.deepEqual(
      recorded.map((a) => [a.attempt, a.status_code]),
      [
        [1, 500],
        [2, 302],
        [3, null],
        [4, 200],
      ],
    );
    assert.match(String(recorded[2]?.error), /no answer within 0.3 s/);
    for (const a of recorded) assert.ok(a.duration_ms >= 0 && a.attempted_at instanceof Date);
  });

  test('after a secret rotation every notification, retries included, is signed with the new secret', async () => {
    const { app, id, received } = await failedOnce('ROTATE-1');
    assertSigned(received, app.subscription.secret);
    const rotated = await app.call('POST', `${PATH}/${app.subscription.id}/actions/rotateSecret`);
    const secret = rotated.json().secret as string;
    const retried = next();
    await attemptDelivery(ctx, { deliveryId: id, attempt: 1 });
    const [again] = await retried;
    assert.equal(again?.json.id, id);
    assertSigned(again!, secret);
    assert.notEqual(
      again?.headers['squarespace-signature'],
      signatureOf(again!.raw, app.subscription.secret),
    );
  });

  test('retries stop after 48 hours: the delivery is then FAILED and no attempt follows', async () => {
    const { id } = await failedOnce('EXPIRE-1', 500, 500);
    ctx.clock.advance(49 * HOUR);
    await attemptDelivery(ctx, { deliveryId: id, attempt: 1 });
    const failed = await delivery(id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.attempts, 2);
    assert.equal(failed.last_status_code, 500);
    assert.ok(failed.completed_on);
    // A failed delivery is never attempted again, whatever job comes for it.
    const seen = receiver.received.length;
    await attemptDelivery(ctx, { deliveryId: id, attempt: 2 });
    assert.equal(receiver.received.length, seen);
  });

  test('an attempt leased by a worker that died is made once the lease runs out, exactly once', async () => {
    const { id } = await failedOnce('LEASE-1');
    // A worker took attempt 2 and died holding it.
    await ctx.db
      .updateTable('webhook_deliveries')
      .set({ leased_until: new Date(ctx.clock.now().getTime() + 30_000) })
      .where('id', '=', id)
      .execute();
    const seen = receiver.received.length;
    await attemptDelivery(ctx, { deliveryId: id, attempt: 1 });
    assert.equal(receiver.received.length, seen, 'no post while the lease holds');
    ctx.clock.advance(31_000);
    await Promise.all([
      attemptDelivery(ctx, { deliveryId: id, attempt: 1 }),
      attemptDelivery(ctx, { deliveryId: id, attempt: 1 }),
    ]);
    assert.equal(receiver.received.length, seen + 1);
    assert.equal((await delivery(id)).status, 'DELIVERED');
  });

  test('a deleted subscription gets nothing more: its waiting notifications are CANCELLED', async () => {
    const { app, id } = await failedOnce('GONE-1');
    assert.equal((await app.call('DELETE', `${PATH}/${app.subscription.id}`)).statusCode, 204);
    const seen = receiver.received.length;
    await attemptDelivery(ctx, { deliveryId: id, attempt: 1 });
    assert.equal(receiver.received.length, seen);
    assert.equal((await delivery(id)).status, 'CANCELLED');
  });
});

describe('the hourly sweep of deliveries', () => {
  test('queues again a waiting delivery whose job is gone, and deletes finished ones after 30 days', async () => {
    const { id } = await failedOnce('SWEEP-1');
    ctx.clock.advance(2 * HOUR);
    // Its retry is queued for later: nothing to do.
    assert.equal((await sweepDeliveries(ctx)).requeued, 0);
    // pg-boss gave up on the job (the database was away longer than its retries last).
    await sql`DELETE FROM pgboss.job WHERE name = 'webhook.deliver' AND data->>'deliveryId' = ${id}`.execute(
      ctx.db,
    );
    const again = next();
    assert.equal((await sweepDeliveries(ctx)).requeued, 1);
    assert.equal((await again)[0]?.json.id, id);
    await until(
      () => delivery(id),
      (d) => d.status === 'DELIVERED',
      'the requeued attempt',
    );

    ctx.clock.advance(29 * 24 * HOUR);
    await sweepDeliveries(ctx);
    assert.equal((await delivery(id)).status, 'DELIVERED');
    ctx.clock.advance(2 * 24 * HOUR);
    assert.ok((await sweepDeliveries(ctx)).deleted >= 1);
    const gone = await ctx.db.selectFrom('webhook_deliveries').select('id').where('id', '=', id).execute();
    assert.deepEqual(gone, []);
    assert.deepEqual(await attempts(id), []);
  });
});

describe('extension.uninstall', () => {
  test("the owner's revocation notifies the app with {clientId}, then its subscriptions on that website are gone", async () => {
    const app = await subscribed(['extension.uninstall', 'product.update']);
    const arriving = next();
    await revokeAccess(ctx, { websiteId: app.site.websiteId, clientId: app.app.clientId });
    const [notice] = await arriving;
    assert.equal(notice?.json.topic, 'extension.uninstall');
    assert.deepEqual(notice?.json.data, { clientId: app.app.clientId });
    assert.equal(notice?.json.subscriptionId, app.subscription.id);
    assertSigned(notice!, app.subscription.secret);
    const left = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('client_id', '=', app.app.clientId)
      .where('website_id', '=', app.site.websiteId)
      .execute();
    assert.deepEqual(left, []);
    assert.equal((await app.call('GET', PATH)).statusCode, 401);
    const id = notice!.json.id;
    assert.equal(
      (
        await until(
          () => delivery(id),
          (d) => d.status !== 'PENDING',
          'delivery',
        )
      ).status,
      'DELIVERED',
    );
  });
});

describe('sendTestNotification', () => {
  test("answers the receiver's status code for one signed attempt with sample data", async () => {
    const app = await subscribed(['order.create', 'extension.uninstall']);
    const url = `${PATH}/${app.subscription.id}/actions/sendTestNotification`;
    const arriving = next();
    const res = await app.call('POST', url, { topic: 'extension.uninstall' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { statusCode: 200, error: null });
    const [test] = await arriving;
    assert.equal(test?.json.topic, 'extension.uninstall');
    assert.match(test!.json.id, /^[0-9a-f]{24}$/);
    assert.deepEqual(test?.json.data, { clientId: app.app.clientId });
    assertSigned(test!, app.subscription.secret);

    receiver.answer(503);
    assert.deepEqual((await app.call('POST', url, { topic: 'order.create' })).json(), {
      statusCode: 503,
      error: null,
    });
    // One attempt only: nothing is queued for later.
    const queued = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', app.subscription.id)
      .execute();
    assert.deepEqual(queued, []);
  });

  test('the sample data of order.create and order.update have the shapes of the platform', async () => {
    const app = await subscribed(['order.create', 'order.update']);
    const url = `${PATH}/${app.subscription.id}/actions/sendTestNotification`;
    for (const [topic, data] of [
      ['order.create', { orderId: '000000000000000000000000' }],
      ['order.update', { orderId: '000000000000000000000000', update: 'FULFILLED' }],
    ] as const) {
      const arriving = next();
      assert.equal((await app.call('POST', url, { topic })).statusCode, 200);
      const [notification] = await arriving;
      assert.equal(notification?.json.topic, topic);
      assert.deepEqual(notification?.json.data, data);
    }
  });

  test('an unreachable receiver: statusCode null and the reason', async () => {
    const app = await subscribed(['order.create']);
    const closed = new Receiver();
    await closed.start();
    const url = closed.url;
    await closed.stop();
    await app.call('POST', `${PATH}/${app.subscription.id}`, { endpointUrl: url });
    const res = await app.call('POST', `${PATH}/${app.subscription.id}/actions/sendTestNotification`, {
      topic: 'order.create',
    });
    assert.equal(res.json().statusCode, null);
    assert.match(res.json().error, /ECONNREFUSED/);
  });
});

describe("the owner's webhooks page", () => {
  test('shows each app subscription with its recent deliveries, and Resend sends one again with the same id', async () => {
    const browser = new TestBrowser(ctx.app);
    await browser.signUp(`hooks-${Date.now()}@example.com`);
    const websiteId = await browser.addSite('Hooked Store');
    const shop = await connectApp(ctx, ['website.products'], {
      app: (await connectApp(ctx)).app,
      site: { websiteId } as Site,
    });
    const app = await subscribed(['product.create'], shop);
    const { id: storePageId } = await ctx.db
      .selectFrom('store_pages')
      .select('id')
      .where('website_id', '=', websiteId)
      .executeTakeFirstOrThrow();
    receiver.answer(500);
    retryDelay = HOUR;
    const first = next();
    const created = await app.call('POST', '/1.1/commerce/products', {
      type: 'PHYSICAL',
      storePageId,
      name: 'Hooked',
      variants: [variant('HOOKED-1')],
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = (await first)[0]!.json.id;
    await until(
      () => delivery(id),
      (d) => d.attempts === 1 && d.leased_until === null,
      'the first attempt',
    );

    const shown = await browser.get(`/sites/${websiteId}/webhooks`);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /Inventory Sync/);
    assert.match(shown.body, new RegExp(receiver.url.replaceAll('.', '\\.')));
    assert.match(shown.body, /product\.create/);
    assert.match(shown.body, /Waiting to be sent/);
    assert.match(shown.body, /HTTP 500/);
    assert.match(shown.body, new RegExp(`/webhooks/deliveries/${id}/resend`));

    const again = next();
    const resent = await browser.post(`/sites/${websiteId}/webhooks/deliveries/${id}/resend`, {
      csrf: browser.csrf,
    });
    assert.equal(resent.statusCode, 303);
    assert.equal((await again)[0]?.json.id, id);
    const done = await until(
      () => delivery(id),
      (d) => d.status === 'DELIVERED',
      'the resend',
    );
    assert.equal(done.attempts, 2);
    assert.match((await browser.get(`/sites/${websiteId}/webhooks`)).body, /Delivered/);

    // Another owner can neither see nor resend it; a resend needs the CSRF token.
    const stranger = new TestBrowser(ctx.app);
    await stranger.signUp(`stranger-${Date.now()}@example.com`);
    assert.equal((await stranger.get(`/sites/${websiteId}/webhooks`)).statusCode, 404);
    await stranger.get('/sites');
    const refused = await stranger.post(`/sites/${websiteId}/webhooks/deliveries/${id}/resend`, {
      csrf: stranger.csrf,
    });
    assert.equal(refused.statusCode, 404);
    assert.equal(
      (await browser.post(`/sites/${websiteId}/webhooks/deliveries/${id}/resend`, {})).statusCode,
      403,
    );
  });
});
