import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Scope } from '../src/shared/scopes.ts';
import { TOPICS } from '../src/webhooks/topics.ts';
import { freshDatabase } from './helpers/database.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { ORDERS } from './helpers/orders.ts';
import { runCli } from './helpers/process.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';
import { assertSigned, connectApp, Receiver, type Received } from './helpers/webhooks.ts';

/**
 * `emporium trigger TOPIC`: the CLI process makes the change and queues its notifications; this
 * file's app, on the same database, is the running server whose worker delivers them.
 */

let ctx: TestContext;
let receiver: Receiver;
let env: Record<string, string>;
before(async () => {
  const url = await freshDatabase();
  env = { DATABASE_URL: url };
  ctx = await testApp({ databaseUrl: url, logLevel: 'silent', webhookWorkers: 1 });
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

const cli = (...args: string[]) => runCli(args, env);

/** The one line a command printed, as JSON. */
function output(stdout: string) {
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, stdout);
  return JSON.parse(lines[0]!);
}

async function subscribed(topics: string[], scopes: Scope[]) {
  const app = await connectApp(ctx, scopes);
  const res = await app.call('POST', '/1.0/webhook_subscriptions', { endpointUrl: receiver.url, topics });
  assert.equal(res.statusCode, 201, res.body);
  return { ...app, subscription: res.json() as { id: string; secret: string } };
}

function next(count = 1): Promise<Received[]> {
  const seen = receiver.received.length;
  return receiver.got(seen + count).then((all) => all.slice(seen));
}

describe('emporium trigger', () => {
  test('order.create then order.update --action CANCELED: one JSON line each, and the app receives both notifications', async () => {
    const app = await subscribed(['order.create', 'order.update'], ['website.orders.read']);
    const websiteId = app.site.websiteId;
    await createProduct(
      app.site,
      physical(app.site, { variants: [variant('CLI-1', { stock: { quantity: 3, unlimited: false } })] }),
    );

    let arriving = next();
    const placed = await cli(
      'trigger',
      'order.create',
      '--website',
      websiteId,
      '--sku',
      'CLI-1',
      '--quantity',
      '2',
      '--email',
      'cli.buyer@example.com',
    );
    assert.equal(placed.code, 0, placed.stderr);
    const created = output(placed.stdout);
    assert.equal(created.topic, 'order.create');
    assert.equal(created.websiteId, websiteId);
    assert.deepEqual(created.notifications, { queued: 1 });
    const { orderId } = created.changed;
    const [notice] = await arriving;
    assert.deepEqual(notice?.json.data, { orderId });
    assertSigned(notice!, app.subscription.secret);
    const order = (await app.call('GET', `${ORDERS}/${orderId}`)).json();
    assert.equal(order.customerEmail, 'cli.buyer@example.com');
    assert.equal(order.lineItems[0].quantity, 2);

    arriving = next();
    const canceled = await cli('trigger', 'order.update', '--website', websiteId, '--action', 'CANCELED');
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.deepEqual(output(canceled.stdout).changed, {
      orderId,
      fulfillmentStatus: 'CANCELED',
      restocked: 2,
    });
    const [update] = await arriving;
    assert.deepEqual(update?.json.data, { orderId, update: 'CANCELED' });
    assert.equal((await app.call('GET', `${ORDERS}/${orderId}`)).json().fulfillmentStatus, 'CANCELED');
  });

  test('order.update --action REFUNDED, MARKED_PENDING, EMAIL_UPDATED --email: each owner change, notified', async () => {
    const app = await subscribed(['order.update'], ['website.orders.read']);
    const websiteId = app.site.websiteId;
    await createProduct(
      app.site,
      physical(app.site, { variants: [variant('CLI-2', { stock: { quantity: 3, unlimited: false } })] }),
    );
    const placed = await cli('trigger', 'order.create', '--website', websiteId, '--sku', 'CLI-2');
    assert.equal(placed.code, 0, placed.stderr);
    const { orderId } = output(placed.stdout).changed;
    const run = async (...args: string[]) => {
      const arriving = next();
      const result = await cli('trigger', 'order.update', '--website', websiteId, ...args);
      assert.equal(result.code, 0, result.stderr);
      const line = output(result.stdout);
      assert.deepEqual(line.notifications, { queued: 1 });
      const [notice] = await arriving;
      assertSigned(notice!, app.subscription.secret);
      return { changed: line.changed, data: notice!.json.data };
    };

    const fulfilled = await run('--order', orderId);
    assert.equal(fulfilled.changed.fulfillmentStatus, 'FULFILLED');
    const pending = await run('--action', 'MARKED_PENDING');
    assert.deepEqual(pending.data, { orderId, update: 'MARKED_PENDING' });
    const email = await run('--action', 'EMAIL_UPDATED', '--email', 'cli.new@example.com');
    assert.deepEqual(email.changed, { orderId, customerEmail: 'cli.new@example.com' });
    assert.deepEqual(email.data, { orderId, update: 'EMAIL_UPDATED' });
    const refunded = await run('--action', 'REFUNDED', '--order', orderId);
    assert.deepEqual(refunded.data, { orderId, update: 'REFUNDED' });
    assert.equal(refunded.changed.paymentState, 'REFUNDED');
    assert.equal(refunded.changed.restocked, 1);
    const order = (await app.call('GET', `${ORDERS}/${orderId}`)).json();
    assert.equal(order.paymentState, 'REFUNDED');
    assert.equal(order.fulfillmentStatus, 'PENDING');
    assert.equal(order.customerEmail, 'cli.new@example.com');

    const again = await cli('trigger', 'order.update', '--website', websiteId, '--action', 'REFUNDED');
    assert.equal(again.code, 1);
    assert.match(output(again.stdout).error.message, /has no PAID order whose payment the store took/);
  });

  test('a change no subscription listens to is made, and the line says none was sent', async () => {
    const site = await ctx.site();
    const result = await cli('trigger', 'product.create', '--website', site.websiteId, '--name', 'Tarp');
    assert.equal(result.code, 0, result.stderr);
    const { changed, notifications } = output(result.stdout);
    assert.equal(notifications.queued, 0);
    assert.match(notifications.note, /no subscription .* listens to product\.create/);
    const res = await site.call({ method: 'GET', url: `/1.1/commerce/products/${changed.productId}` });
    assert.equal(res.json().products[0].name, 'Tarp');
  });

  test('an unknown topic exits with 2 and names the topics; nothing is queued', async () => {
    const site = await ctx.site();
    const result = await cli('trigger', 'order.explode', '--website', site.websiteId);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    const [first] = result.stderr.split('\n');
    assert.equal(
      first,
      `emporium: unknown command: trigger order.explode; the trigger commands are: ${TOPICS.join(', ')}`,
    );
    const queued = await ctx.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('website_id', '=', site.websiteId)
      .execute();
    assert.deepEqual(queued, []);
  });

  test('an unknown order exits with 1 and a JSON error; the order asked for stays unchanged', async () => {
    const app = await subscribed(['order.update'], ['website.orders.read']);
    const websiteId = app.site.websiteId;
    const before = await ctx.db
      .selectFrom('orders')
      .select('id')
      .where('website_id', '=', websiteId)
      .execute();
    const result = await cli(
      'trigger',
      'order.update',
      '--website',
      websiteId,
      '--order',
      'ffffffffffffffffffffffff',
    );
    assert.equal(result.code, 1);
    assert.deepEqual(output(result.stdout), {
      error: { message: 'order not found: ffffffffffffffffffffffff' },
    });
    const after = await ctx.db
      .selectFrom('orders')
      .select('id')
      .where('website_id', '=', websiteId)
      .execute();
    assert.deepEqual(after, before);
  });

  test('an option of another topic is a usage error, exit code 2', async () => {
    const result = await cli(
      'trigger',
      'product.delete',
      '--website',
      'ffffffffffffffffffffffff',
      '--order',
      'x',
    );
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^emporium: Unknown option '--order'/);
  });

  test('--help lists one trigger command a topic, with its options', async () => {
    const help = await cli('--help');
    assert.equal(help.code, 0);
    for (const topic of TOPICS)
      assert.match(help.stdout, new RegExp(`^  trigger ${topic} --website ID`, 'm'));
    assert.match(
      help.stdout,
      /^ {2}trigger order\.create --website ID \[--sku S\] \[--quantity N\] \[--email E\]$/m,
    );
    assert.match(
      help.stdout,
      /^ {2}trigger order\.update --website ID \[--order ID\] \[--action FULFILLED\|CANCELED\|REFUNDED\|MARKED_PENDING\|EMAIL_UPDATED\] \[--email E\]$/m,
    );
    assert.match(help.stdout, /^ {2}trigger extension\.uninstall --website ID \[--client ID\]$/m);
  });
});
