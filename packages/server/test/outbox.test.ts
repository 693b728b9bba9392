import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { emit, subscribed } from '../src/webhooks/outbox.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';
import { connectApp, type ConnectedApp } from './helpers/webhooks.ts';

/**
 * The outbox's look-up of a website's subscriptions: once a transaction, so that an order's
 * several events (order.create, its buyer's contact.*, its products' product.update) cost one.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', queue: true });
});
after(() => ctx.close());

async function subscribe(app: ConnectedApp, endpointUrl: string): Promise<void> {
  const res = await app.call('POST', '/1.0/webhook_subscriptions', { endpointUrl, topics: ['order.create'] });
  assert.equal(res.statusCode, 201, res.body);
}

test("a transaction's events go to the subscriptions there were at its first; the next transaction's to the new ones", async () => {
  const app = await connectApp(ctx, ['website.orders']);
  await subscribe(app, 'https://hooks.example.com/first');
  const deps = { clock: ctx.clock, ids: ctx.ids, jobs: ctx.jobs };
  const event = {
    websiteId: app.site.websiteId,
    topic: 'order.create',
    data: { orderId: 'a'.repeat(24) },
  } as const;

  const queued = await ctx.db.transaction().execute(async (trx) => {
    const first = await emit(trx, deps, event);
    await subscribe(app, 'https://hooks.example.com/second'); // committed meanwhile, elsewhere
    return [first, await emit(trx, deps, event)];
  });
  assert.deepEqual(queued, [1, 1]);
  assert.equal(await ctx.db.transaction().execute((trx) => emit(trx, deps, event)), 2);
});

test('subscribed: whether any subscription of the website takes the topic', async () => {
  const app = await connectApp(ctx, ['website.orders']);
  const { websiteId } = app.site;
  assert.equal(
    await ctx.db.transaction().execute((trx) => subscribed(trx, websiteId, 'order.create')),
    false,
  );
  await subscribe(app, 'https://hooks.example.com/orders');
  await ctx.db.transaction().execute(async (trx) => {
    assert.equal(await subscribed(trx, websiteId, 'order.create'), true);
    assert.equal(await subscribed(trx, websiteId, 'order.update'), false);
  });
});
