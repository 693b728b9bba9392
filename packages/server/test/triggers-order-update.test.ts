import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrder } from '../src/orders/orders.service.ts';
import { refundOrder } from '../src/orders/refund-order.ts';
import { trigger, type TriggerOptions } from '../src/testing/triggers.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { created, customLine, importBody, nativeDraft, ORDERS } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { assertSigned, connectApp, Receiver, type ConnectedApp, type Received } from './helpers/webhooks.ts';

/**
 * order.update's owner changes beyond fulfil and cancel (triggers.test.ts has those): REFUNDED,
 * MARKED_PENDING and EMAIL_UPDATED each make the owner's change through its service, so the app
 * receives the notification the platform sends and reads the order as changed; each refusal
 * says why and changes nothing.
 */

let ctx: TestContext;
let receiver: Receiver;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', webhookWorkers: 1 });
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

type Subscribed = ConnectedApp & { subscription: { id: string; secret: string }; productId: string };

/** A newly connected app on a new site, subscribed to order.update at the receiver, with stock of SKU. */
async function subscribed(sku: string, stock = 10): Promise<Subscribed> {
  const app = await connectApp(ctx, ['website.orders', 'website.transactions.read']);
  const res = await app.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: receiver.url,
    topics: ['order.update'],
  });
  assert.equal(res.statusCode, 201, res.body);
  const product = await createProduct(
    app.site,
    physical(app.site, {
      name: 'Camp Kettle',
      variants: [variant(sku, { stock: { quantity: stock, unlimited: false } })],
    }),
  );
  return { ...app, subscription: res.json(), productId: product.id };
}

/** The receiver's next request after those it already has. */
function next(): Promise<Received | undefined> {
  const seen = receiver.received.length;
  return receiver.got(seen + 1).then((all) => all[seen]);
}

/** Triggers order.update on the app's site; the one notification it sent, arrived and signed. */
async function fire(app: Subscribed, options: TriggerOptions) {
  const arriving = next();
  const result = await trigger(ctx.api, 'order.update', { websiteId: app.site.websiteId, ...options });
  const notice = await arriving;
  assert.ok(notice);
  assert.equal(notice.json.topic, 'order.update');
  assert.equal(notice.json.websiteId, app.site.websiteId);
  assertSigned(notice, app.subscription.secret);
  assert.deepEqual(result.notifications, { queued: 1 });
  return { changed: result.changed, data: notice.json.data as Record<string, unknown> };
}

/** A paid storefront order of the site, as order.create places one; its id. */
async function placed(site: Site, options: TriggerOptions = {}): Promise<string> {
  const result = await trigger(ctx.api, 'order.create', { websiteId: site.websiteId, ...options });
  return String(result.changed.orderId);
}

async function apiOrder(app: Subscribed, orderId: string) {
  const res = await app.call('GET', `${ORDERS}/${orderId}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function stockOf(app: Subscribed): Promise<number> {
  const res = await app.site.call({ method: 'GET', url: `/1.1/commerce/products/${app.productId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0].variants[0].stock.quantity;
}

describe('order.update makes each change of the owner that the platform notifies', () => {
  test('REFUNDED refunds the newest PAID order in full, its items back in stock; an imported order is passed over', async () => {
    const app = await subscribed('KETTLE-1');
    const older = await placed(app.site, { quantity: 1 });
    const newer = await placed(app.site, { quantity: 2 });
    // Imported later, and PAID, but paid on another channel: there is no payment to refund.
    const createdOn = ctx.clock.now().toISOString();
    const imported = await created(app.site, importBody([customLine('Etsy mug')], { createdOn }));
    assert.equal(imported.paymentState, 'PAID');
    const newest = await ctx.db
      .selectFrom('orders')
      .select('id')
      .where('website_id', '=', app.site.websiteId)
      .orderBy('placed_on', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal(newest.id, imported.id, 'the imported order is the newest');
    assert.equal(await stockOf(app), 7);
    const before = await apiOrder(app, newer);

    const { changed, data } = await fire(app, { action: 'REFUNDED' });
    assert.deepEqual(data, { orderId: newer, update: 'REFUNDED' });
    assert.deepEqual(changed, {
      orderId: newer,
      refundId: changed.refundId,
      refunded: before.grandTotal.value,
      currency: before.grandTotal.currency,
      paymentState: 'REFUNDED',
      restocked: 2,
    });
    const order = await apiOrder(app, newer);
    assert.equal(order.paymentState, 'REFUNDED');
    assert.deepEqual(order.refundedTotal, before.grandTotal);
    assert.equal(await stockOf(app), 9);
    assert.equal((await apiOrder(app, older)).paymentState, 'PAID');
    const document = (await app.call('GET', `/1.0/commerce/transactions?orderId=${newer}`)).json()
      .documents[0];
    assert.deepEqual(document.payments[0].refundedAmount, before.grandTotal);
    // As the owner's refund does, the buyer is told.
    const notices = await ctx.db
      .selectFrom('emails')
      .select('id')
      .where('order_id', '=', newer)
      .where('kind', '=', 'refund_notice')
      .execute();
    assert.equal(notices.length, 1);
  });

  test('REFUNDED of an order named gives back what is left after a part refund; a canceled one without restocking', async () => {
    const app = await subscribed('KETTLE-2');
    const part = await placed(app.site, { quantity: 2 });
    const order = await apiOrder(app, part);
    const first = await refundOrder(ctx.api, app.site.websiteId, part, {
      full: false,
      restock: false,
      lines: [],
      shipping: false,
      otherMinor: 100,
    });
    assert.equal(first.paymentState, 'PAID');
    const { changed } = await fire(app, { orderId: part.toUpperCase(), action: 'REFUNDED' });
    const paidMinor = Math.round(Number(order.grandTotal.value) * 100);
    assert.equal(changed.refunded, ((paidMinor - 100) / 100).toFixed(2));
    assert.equal(changed.paymentState, 'REFUNDED');
    assert.equal((await apiOrder(app, part)).refundedTotal.value, order.grandTotal.value);

    const canceled = await placed(app.site);
    await trigger(ctx.api, 'order.update', {
      websiteId: app.site.websiteId,
      orderId: canceled,
      action: 'CANCELED',
    });
    const stock = await stockOf(app);
    const refund = await fire(app, { orderId: canceled, action: 'REFUNDED' });
    assert.equal(refund.changed.restocked, 0, 'a canceled order put its stock back when it was canceled');
    assert.equal(await stockOf(app), stock);
    assert.equal((await apiOrder(app, canceled)).paymentState, 'REFUNDED');
  });

  test('MARKED_PENDING marks the newest FULFILLED order pending again; its shipment stays', async () => {
    const app = await subscribed('KETTLE-3');
    const older = await placed(app.site);
    await trigger(ctx.api, 'order.update', { websiteId: app.site.websiteId, orderId: older });
    const newer = await placed(app.site);
    await trigger(ctx.api, 'order.update', { websiteId: app.site.websiteId, orderId: newer });
    await placed(app.site); // PENDING, newer still: not the one marked
    const stock = await stockOf(app);

    const { changed, data } = await fire(app, { action: 'MARKED_PENDING' });
    assert.deepEqual(changed, { orderId: newer, fulfillmentStatus: 'PENDING' });
    assert.deepEqual(data, { orderId: newer, update: 'MARKED_PENDING' });
    const order = await apiOrder(app, newer);
    assert.equal(order.fulfillmentStatus, 'PENDING');
    assert.equal(order.fulfilledOn, null);
    assert.equal(order.fulfillments.length, 1);
    assert.equal((await apiOrder(app, older)).fulfillmentStatus, 'FULFILLED');
    assert.equal(await stockOf(app), stock, 'no stock moves');

    const named = await fire(app, { orderId: older, action: 'MARKED_PENDING' });
    assert.equal(named.changed.orderId, older);
    assert.equal((await apiOrder(app, older)).fulfillmentStatus, 'PENDING');
  });

  test('EMAIL_UPDATED gives the newest order a made-up address, or the one named the --email given', async () => {
    const app = await subscribed('KETTLE-4');
    const older = await placed(app.site, { email: 'first.buyer@example.com' });
    await trigger(ctx.api, 'order.update', { websiteId: app.site.websiteId, orderId: older });
    const newer = await placed(app.site, { email: 'second.buyer@example.com' });

    const { changed, data } = await fire(app, { action: 'EMAIL_UPDATED' });
    assert.equal(changed.orderId, newer);
    assert.match(String(changed.customerEmail), /^[a-z]+\.[a-z]+\+[0-9a-f]{8}@example\.com$/);
    assert.deepEqual(data, { orderId: newer, update: 'EMAIL_UPDATED' });
    assert.equal((await apiOrder(app, newer)).customerEmail, changed.customerEmail);

    const named = await fire(app, {
      orderId: older,
      action: 'EMAIL_UPDATED',
      email: '  New.Address@example.com ',
    });
    assert.deepEqual(named.changed, { orderId: older, customerEmail: 'New.Address@example.com' });
    const order = await apiOrder(app, older);
    assert.equal(order.customerEmail, 'New.Address@example.com');
    assert.equal(order.fulfillmentStatus, 'FULFILLED', 'any status');
    const document = (await app.call('GET', `/1.0/commerce/transactions?orderId=${older}`)).json()
      .documents[0];
    assert.equal(document.customerEmail, 'New.Address@example.com');
  });
});

/** What a refused trigger must leave as it was: the orders, their refunds, the stock, the outbox. */
async function state(websiteId: string) {
  const db = ctx.db;
  return {
    orders: await db
      .selectFrom('orders')
      .select([
        'id',
        'fulfillment_status',
        'payment_state',
        'refunded_total_minor',
        'customer_email',
        'modified_on',
      ])
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .execute(),
    refunds: await db.selectFrom('order_refunds').select('id').where('website_id', '=', websiteId).execute(),
    stock: await db
      .selectFrom('variants')
      .select(['id', 'stock_quantity'])
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .execute(),
    outbox: await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .execute(),
  };
}

/** order.update with `options` is refused with `error`, and the site is as it was. */
async function refused(websiteId: string, options: TriggerOptions, error: RegExp, name = 'ValidationError') {
  const before = await state(websiteId);
  await assert.rejects(trigger(ctx.api, 'order.update', { websiteId, ...options }), { name, message: error });
  assert.deepEqual(await state(websiteId), before);
}

describe('order.update REFUNDED, MARKED_PENDING and EMAIL_UPDATED refused, changing nothing', () => {
  test('REFUNDED with no PAID order to refund, or of an order not PAID, or paid on another channel', async () => {
    const app = await subscribed('NOPAY-1');
    const { websiteId } = app.site;
    await refused(websiteId, { action: 'REFUNDED' }, /has no PAID order whose payment the store took/);
    const imported = await created(app.site, importBody([customLine('Etsy mug')]));
    await refused(websiteId, { action: 'REFUNDED' }, /has no PAID order whose payment the store took/);
    await refused(
      websiteId,
      { orderId: imported.id, action: 'REFUNDED' },
      /came from another channel \(external\), and the store took no payment to refund/,
    );
    const draft = nativeDraft(ctx.clock.now(), { paymentState: 'PENDING' });
    const { order: pending } = await createOrder(ctx.api, websiteId, draft);
    await refused(
      websiteId,
      { orderId: pending.id, action: 'REFUNDED' },
      new RegExp(`^order ${pending.id} is PENDING, not PAID: only a paid order can be refunded$`),
    );
    const order = await placed(app.site);
    await trigger(ctx.api, 'order.update', { websiteId, orderId: order, action: 'REFUNDED' });
    await refused(websiteId, { orderId: order, action: 'REFUNDED' }, /is REFUNDED, not PAID/);
    await refused(websiteId, { action: 'REFUNDED' }, /has no PAID order/);
  });

  test('MARKED_PENDING with no FULFILLED order, or of an order PENDING or CANCELED', async () => {
    const app = await subscribed('NOSHIP-1');
    const { websiteId } = app.site;
    const pending = await placed(app.site);
    await refused(
      websiteId,
      { action: 'MARKED_PENDING' },
      /has no FULFILLED order to mark pending: trigger order\.update \(FULFILLED\) first/,
    );
    await refused(
      websiteId,
      { orderId: pending, action: 'MARKED_PENDING' },
      new RegExp(`^order ${pending} is PENDING: only a FULFILLED order can be marked pending$`),
    );
    await trigger(ctx.api, 'order.update', { websiteId, orderId: pending, action: 'CANCELED' });
    await refused(websiteId, { orderId: pending, action: 'MARKED_PENDING' }, /is CANCELED: only a FULFILLED/);
  });

  test('EMAIL_UPDATED on a site with no order, of an unknown order, to no address or the same one', async () => {
    const app = await subscribed('NOMAIL-1');
    const { websiteId } = app.site;
    await refused(websiteId, { action: 'EMAIL_UPDATED' }, /has no order: trigger order\.create first/);
    const order = await placed(app.site, { email: 'same@example.com' });
    await refused(
      websiteId,
      { orderId: 'ffffffffffffffffffffffff', action: 'EMAIL_UPDATED' },
      /^order not found: f{24}$/,
      'NotFound',
    );
    await refused(
      websiteId,
      { action: 'EMAIL_UPDATED', email: 'not an address' },
      /^email: not an e-mail address$/,
    );
    await refused(
      websiteId,
      { orderId: order, action: 'EMAIL_UPDATED', email: 'same@example.com' },
      /^email: the order's e-mail is already same@example\.com; nothing changed$/,
    );
    await refused(
      websiteId,
      { action: 'EMAIL_UPDATED', email: `${'a'.repeat(250)}@example.com` },
      /^email: at most 254 characters$/,
    );
  });

  test('an e-mail with another action, and an action there is none of', async () => {
    const app = await subscribed('ODD-2');
    const { websiteId } = app.site;
    await placed(app.site);
    await refused(
      websiteId,
      { action: 'FULFILLED', email: 'x@example.com' },
      /^email: order\.update takes an e-mail only with the action EMAIL_UPDATED .*, not FULFILLED$/,
    );
    await refused(
      websiteId,
      { email: 'x@example.com' },
      /only with the action EMAIL_UPDATED .*, not FULFILLED$/,
      'ValidationError',
    );
    await refused(
      websiteId,
      { action: 'PARTIALLY_REFUNDED' },
      /^action: one of FULFILLED, CANCELED, REFUNDED, MARKED_PENDING, EMAIL_UPDATED, not "PARTIALLY_REFUNDED"$/,
    );
  });
});
