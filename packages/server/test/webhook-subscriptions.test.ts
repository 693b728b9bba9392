import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertError } from './helpers/shape.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';
import { connectApp, Receiver, until, type ConnectedApp } from './helpers/webhooks.ts';

const PATH = '/1.0/webhook_subscriptions';
const HTTPS = 'https://hooks.example.com/emporium';

/** An app whose webhooks must reach public addresses, as in production (WEBHOOK_ALLOW_PRIVATE unset). */
let ctx: TestContext;
let shop: ConnectedApp;
let resolved = '203.0.113.10';
const lookup = ((_host, _options, callback) =>
  callback(null, [{ address: resolved, family: resolved.includes(':') ? 6 : 4 }] as never)) as LookupFunction;

before(async () => {
  ctx = await testApp({ logLevel: 'silent', webhookWorkers: 1, webhooks: { allowPrivate: false, lookup } });
  shop = await connectApp(ctx);
});
after(() => ctx.close());

async function subscribe(app: ConnectedApp, body: object = { endpointUrl: HTTPS, topics: ['order.create'] }) {
  const res = await app.call('POST', PATH, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as {
    id: string;
    websiteId: string;
    clientId: string;
    secret: string;
    endpointUrl: string;
    topics: string[];
    createdOn: string;
    updatedOn: string;
  };
}

describe('webhook subscription endpoints', () => {
  test('create answers 201 with the subscription, its app and website, and its 64-hex secret; list, get and update never show the secret', async () => {
    const created = await subscribe(shop, { endpointUrl: HTTPS, topics: ['order.create', 'order.update'] });
    assert.deepEqual(Object.keys(created).sort(), [
      'clientId',
      'createdOn',
      'endpointUrl',
      'id',
      'secret',
      'topics',
      'updatedOn',
      'websiteId',
    ]);
    assert.match(created.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(created.secret, /^[0-9a-f]{64}$/);
    assert.deepEqual(created.topics, ['order.create', 'order.update']);
    assert.equal(created.clientId, shop.app.clientId);
    assert.equal(created.websiteId, shop.site.websiteId);

    const { secret: _secret, ...withoutSecret } = created;
    const list = await shop.call('GET', PATH);
    assert.equal(list.statusCode, 200);
    const listed = list.json().webhookSubscriptions.find((s: { id: string }) => s.id === created.id);
    assert.deepEqual(listed, withoutSecret);
    const one = await shop.call('GET', `${PATH}/${created.id}`);
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), withoutSecret);
    const updated = await shop.call('POST', `${PATH}/${created.id}`, { endpointUrl: HTTPS });
    assert.equal(updated.statusCode, 200);
    assert.deepEqual(Object.keys(updated.json()).sort(), Object.keys(withoutSecret).sort());
    assert.equal(updated.json().clientId, shop.app.clientId);
    assert.equal(updated.json().websiteId, shop.site.websiteId);
  });

  test('partial update changes only what is sent; the secret stays', async () => {
    const created = await subscribe(shop);
    const res = await shop.call('POST', `${PATH}/${created.id}`, {
      topics: ['order.update', 'order.update'],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().topics, ['order.update']);
    assert.equal(res.json().endpointUrl, HTTPS);
    const moved = await shop.call('POST', `${PATH}/${created.id}`, {
      endpointUrl: 'https://other.example.com/h',
    });
    assert.deepEqual(moved.json().topics, ['order.update']);
    assert.equal(moved.json().endpointUrl, 'https://other.example.com/h');
    assert.ok(moved.json().updatedOn > created.createdOn);
  });

  test('delete answers 204, then the subscription is 404 everywhere', async () => {
    const created = await subscribe(shop);
    assert.equal((await shop.call('DELETE', `${PATH}/${created.id}`)).statusCode, 204);
    for (const [method, url] of [
      ['GET', `${PATH}/${created.id}`],
      ['DELETE', `${PATH}/${created.id}`],
      ['POST', `${PATH}/${created.id}/actions/rotateSecret`],
    ] as const) {
      assertError(
        await shop.call(method, url),
        404,
        'INVALID_REQUEST_ERROR',
        'INVALID_ARGUMENT',
        /not found/,
      );
    }
  });

  test('rotateSecret answers a new secret', async () => {
    const created = await subscribe(shop);
    const res = await shop.call('POST', `${PATH}/${created.id}/actions/rotateSecret`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Object.keys(res.json()), ['secret']);
    assert.match(res.json().secret, /^[0-9a-f]{64}$/);
    assert.notEqual(res.json().secret, created.secret);
  });

  test('an API key is refused on every endpoint with 403 OAUTH_TOKEN_REQUIRED', async () => {
    const created = await subscribe(shop);
    const site = await ctx.site();
    for (const [method, url] of [
      ['GET', PATH],
      ['POST', PATH],
      ['GET', `${PATH}/${created.id}`],
      ['POST', `${PATH}/${created.id}`],
      ['DELETE', `${PATH}/${created.id}`],
      ['POST', `${PATH}/${created.id}/actions/rotateSecret`],
      ['POST', `${PATH}/${created.id}/actions/sendTestNotification`],
    ] as const) {
      const res = await site.call({ method, url, payload: { endpointUrl: HTTPS, topics: ['order.create'] } });
      assertError(res, 403, 'AUTHORIZATION_ERROR', 'OAUTH_TOKEN_REQUIRED');
    }
  });

  test("another app, or the same app on another website, sees none of this app's subscriptions", async () => {
    const created = await subscribe(shop);
    const other = await connectApp(ctx, ['website.orders'], {
      app: (await connectApp(ctx)).app,
      site: shop.site,
    });
    assert.deepEqual(
      (await other.call('GET', PATH)).json().webhookSubscriptions.map((s: { id: string }) => s.id),
      [],
    );
    assertError(
      await other.call('GET', `${PATH}/${created.id}`),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    const elsewhere = await connectApp(ctx, ['website.orders'], { app: shop.app, site: await ctx.site() });
    assertError(
      await elsewhere.call('DELETE', `${PATH}/${created.id}`),
      404,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
    );
    assert.equal((await shop.call('GET', `${PATH}/${created.id}`)).statusCode, 200);
  });
});

describe('webhook subscription rules', () => {
  test('topics: unknown, empty or missing is a 400 naming the field', async () => {
    assertError(
      await shop.call('POST', PATH, { endpointUrl: HTTPS, topics: ['order.delete'] }),
      400,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      /topics\[0\]: unknown topic "order.delete"/,
    );
    assertError(
      await shop.call('POST', PATH, { endpointUrl: HTTPS, topics: [] }),
      400,
      'INVALID_REQUEST_ERROR',
      'MISSING_ARGUMENT',
      /topics/,
    );
    assertError(
      await shop.call('POST', PATH, { endpointUrl: HTTPS }),
      400,
      'INVALID_REQUEST_ERROR',
      'MISSING_ARGUMENT',
      /topics/,
    );
  });

  test('a topic needs its scope: order topics an orders scope, product topics website.products.read', async () => {
    const reader = await connectApp(ctx, ['website.inventory']);
    assertError(
      await reader.call('POST', PATH, { endpointUrl: HTTPS, topics: ['order.create'] }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
      /order.create needs the website.orders.read scope/,
    );
    assertError(
      await reader.call('POST', PATH, { endpointUrl: HTTPS, topics: ['product.update'] }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
      /website.products.read/,
    );
    // extension.uninstall needs no scope; website.orders implies website.orders.read.
    await subscribe(reader, { endpointUrl: HTTPS, topics: ['extension.uninstall'] });
    await subscribe(await connectApp(ctx, ['website.orders']), {
      endpointUrl: HTTPS,
      topics: ['order.update'],
    });
  });

  test('the contact and address topics are accepted with website.contacts', async () => {
    const contacts = await connectApp(ctx, ['website.contacts']);
    const topics = [
      'contact.create',
      'contact.update',
      'contact.delete',
      'address.create',
      'address.update',
      'address.delete',
    ];
    const created = await subscribe(contacts, { endpointUrl: HTTPS, topics });
    assert.deepEqual(created.topics, topics);
    const moved = await contacts.call('POST', `${PATH}/${created.id}`, { topics: ['address.delete'] });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual(moved.json().topics, ['address.delete']);
  });

  test('each contact and address topic needs website.contacts: the read scope is not enough', async () => {
    const readers = [
      await connectApp(ctx, ['website.contacts.read', 'website.orders.read']),
      await connectApp(ctx, ['website.products', 'website.orders', 'website.profiles']),
    ];
    for (const reader of readers) {
      for (const topic of ['contact.create', 'contact.update', 'contact.delete']) {
        assertError(
          await reader.call('POST', PATH, { endpointUrl: HTTPS, topics: ['order.create', topic] }),
          403,
          'AUTHORIZATION_ERROR',
          'MISSING_SCOPE',
          new RegExp(`topics\\[1\\]: ${topic} needs the website.contacts scope`),
        );
      }
      for (const topic of ['address.create', 'address.update', 'address.delete']) {
        assertError(
          await reader.call('POST', PATH, { endpointUrl: HTTPS, topics: [topic] }),
          403,
          'AUTHORIZATION_ERROR',
          'MISSING_SCOPE',
          new RegExp(`${topic} needs the website.contacts scope`),
        );
      }
    }
    const existing = await subscribe(readers[1]!);
    assertError(
      await readers[1]!.call('POST', `${PATH}/${existing.id}`, { topics: ['contact.update'] }),
      403,
      'AUTHORIZATION_ERROR',
      'MISSING_SCOPE',
      /website.contacts/,
    );
  });

  test('AB-4 endpointUrl must be https and must not name a non-public address', async () => {
    for (const [endpointUrl, message] of [
      ['http://hooks.example.com/h', /must be an https URL/],
      ['ftp://hooks.example.com/h', /must be an https URL/],
      ['not a url', /not an absolute URL/],
      ['https://user:pw@hooks.example.com/h', /user name or password/],
      ['https://127.0.0.1/h', /non-public address 127.0.0.1/],
      ['https://2130706433/h', /non-public address 127.0.0.1/],
      ['https://0x7f.1/h', /non-public address 127.0.0.1/],
      ['https://10.1.2.3/h', /non-public/],
      ['https://172.16.5.4/h', /non-public/],
      ['https://192.168.0.10/h', /non-public/],
      ['https://169.254.169.254/latest/meta-data', /non-public address 169.254.169.254/],
      ['https://0.0.0.0/h', /non-public/],
      ['https://[::1]/h', /non-public address ::1/],
      ['https://[fe80::1]/h', /non-public/],
      ['https://[fd00::1]/h', /non-public/],
      ['https://[::ffff:127.0.0.1]/h', /non-public/],
      ['https://[::ffff:a9fe:a9fe]/h', /non-public/],
      ['https://localhost/h', /this machine/],
      [`https://hooks.example.com/${'a'.repeat(2100)}`, /at most 2048 characters/],
    ] as const) {
      const res = await shop.call('POST', PATH, { endpointUrl, topics: ['order.create'] });
      assertError(res, 400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', message);
    }
    const created = await subscribe(shop);
    assertError(
      await shop.call('POST', `${PATH}/${created.id}`, { endpointUrl: 'https://10.0.0.1/' }),
      400,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      /non-public/,
    );
  });

  test('AB-4 at delivery time a name resolving to a non-public address is refused without connecting (DNS rebinding)', async () => {
    const receiver = await new Receiver().start();
    try {
      const created = await subscribe(shop, {
        endpointUrl: 'https://rebind.example.com/h',
        topics: ['order.create'],
      });
      for (const address of [
        '127.0.0.1',
        '10.0.0.7',
        '169.254.169.254',
        '::1',
        'fe80::1',
        '::ffff:127.0.0.1',
      ]) {
        resolved = address;
        const res = await shop.call('POST', `${PATH}/${created.id}/actions/sendTestNotification`, {
          topic: 'order.create',
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().statusCode, null);
        assert.match(
          res.json().error,
          new RegExp(`rebind.example.com resolves to a non-public address ${address}`),
        );
      }
      assert.equal(receiver.received.length, 0);
    } finally {
      resolved = '203.0.113.10';
      await receiver.stop();
    }
  });

  test('AB-4 a queued notification to a name that now resolves privately is refused and recorded, not sent', async () => {
    const app = await connectApp(ctx, ['website.products']);
    await subscribe(app, { endpointUrl: 'https://rebind.example.com/h', topics: ['product.create'] });
    resolved = '192.168.1.20';
    try {
      const product = await app.call('POST', '/1.1/commerce/products', {
        type: 'PHYSICAL',
        storePageId: app.site.storePageId,
        name: 'Rebound',
        variants: [{ sku: 'REBIND-1', pricing: { basePrice: { currency: 'USD', value: '1.00' } } }],
      });
      assert.equal(product.statusCode, 201, product.body);
      const attempt = await until(
        () =>
          ctx.db
            .selectFrom('webhook_attempts')
            .innerJoin('webhook_deliveries', 'id', 'delivery_id')
            .select(['error', 'status_code'])
            .where('website_id', '=', app.site.websiteId)
            .executeTakeFirst(),
        (row) => row !== undefined,
        'the first attempt',
      );
      assert.equal(attempt?.status_code, null);
      assert.match(String(attempt?.error), /resolves to a non-public address 192.168.1.20/);
    } finally {
      resolved = '203.0.113.10';
    }
  });

  test('at most 25 subscriptions an app per website, also when created in parallel: then 409 WEBHOOK_SUBSCRIPTION_LIMIT_REACHED', async () => {
    const app = await connectApp(ctx, ['website.orders.read']);
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        app.call('POST', PATH, { endpointUrl: HTTPS, topics: ['order.create'] }),
      ),
    );
    assert.equal(results.filter((r) => r.statusCode === 201).length, 25);
    for (const res of results.filter((r) => r.statusCode !== 201)) {
      assertError(res, 409, 'CONFLICT', 'WEBHOOK_SUBSCRIPTION_LIMIT_REACHED', /at most 25/);
    }
    // Another app on the same website has its own 25.
    const other = await connectApp(ctx, ['website.orders.read'], {
      app: (await connectApp(ctx)).app,
      site: app.site,
    });
    await subscribe(other);
  });

  test('sendTestNotification has no test of a contact or address topic: 400 naming the topics it has', async () => {
    const contacts = await connectApp(ctx, ['website.contacts']);
    const created = await subscribe(contacts, {
      endpointUrl: HTTPS,
      topics: ['extension.uninstall', 'contact.create', 'address.delete'],
    });
    for (const topic of ['contact.create', 'address.delete']) {
      const res = await contacts.call('POST', `${PATH}/${created.id}/actions/sendTestNotification`, {
        topic,
      });
      assertError(
        res,
        400,
        'INVALID_REQUEST_ERROR',
        'INVALID_ARGUMENT',
        new RegExp(
          `topic: ${topic} has no test notification; one of extension.uninstall, order.create, order.update, product`,
        ),
      );
    }
  });

  test('sendTestNotification only for a topic of the subscription', async () => {
    const created = await subscribe(shop);
    assertError(
      await shop.call('POST', `${PATH}/${created.id}/actions/sendTestNotification`, {
        topic: 'order.update',
      }),
      400,
      'INVALID_REQUEST_ERROR',
      'INVALID_ARGUMENT',
      /one of the subscription's topics: order.create/,
    );
  });
});
