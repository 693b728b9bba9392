import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Scope } from '../src/shared/scopes.ts';
import { trigger, TRIGGERS, type TriggerOptions } from '../src/testing/triggers.ts';
import { TOPICS } from '../src/webhooks/topics.ts';
import { book, CONTACTS } from './helpers/contacts.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { registerApp } from './helpers/oauth.ts';
import { ORDERS } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { assertSigned, connectApp, Receiver, type ConnectedApp, type Received } from './helpers/webhooks.ts';

/**
 * Each topic's trigger makes the real change: the subscribed app receives the signed
 * notification the change queued, and the record it names reads as changed through the API.
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

type Subscribed = ConnectedApp & { subscription: { id: string; secret: string } };

/** A newly connected app on a new site, subscribed to `topics` at the receiver. */
async function subscribed(topics: string[], scopes: Scope[]): Promise<Subscribed> {
  const app = await connectApp(ctx, scopes);
  const res = await app.call('POST', '/1.0/webhook_subscriptions', { endpointUrl: receiver.url, topics });
  assert.equal(res.statusCode, 201, res.body);
  return { ...app, subscription: res.json() };
}

/** The receiver's next `count` requests after those it already has. */
function next(count = 1): Promise<Received[]> {
  const seen = receiver.received.length;
  return receiver.got(seen + count).then((all) => all.slice(seen));
}

/** Triggers `topic` on the app's site; its one notification, arrived, signed and counted. */
async function fire(app: Subscribed, topic: string, options: TriggerOptions = {}) {
  const arriving = next();
  const result = await trigger(ctx.api, topic, { websiteId: app.site.websiteId, ...options });
  const [notice] = await arriving;
  assert.ok(notice);
  assert.equal(notice.json.topic, topic);
  assert.equal(notice.json.websiteId, app.site.websiteId);
  assert.equal(notice.json.subscriptionId, app.subscription.id);
  assertSigned(notice, app.subscription.secret);
  assert.deepEqual(result.notifications, { queued: 1 });
  return { changed: result.changed, data: notice.json.data as Record<string, unknown> };
}

/** A product of the site with `quantity` of its one variant in stock. */
async function stocked(site: Site, sku: string, quantity: number) {
  return createProduct(
    site,
    physical(site, {
      name: 'Camp Stove',
      variants: [variant(sku, { stock: { quantity, unlimited: false } })],
    }),
  );
}

async function stockOf(site: Site, productId: string): Promise<number> {
  const res = await site.call({ method: 'GET', url: `/1.1/commerce/products/${productId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0].variants[0].stock.quantity;
}

describe('a trigger makes the real change and the subscribed app receives its notification', () => {
  test('order.create places an order of the SKU asked, taking its stock; the app reads the order it names', async () => {
    const app = await subscribed(['order.create'], ['website.orders.read']);
    const product = await stocked(app.site, 'STOVE-1', 5);
    const { changed, data } = await fire(app, 'order.create', {
      sku: 'STOVE-1',
      quantity: 2,
      email: 'camper@example.com',
    });
    assert.deepEqual(data, { orderId: changed.orderId });
    const res = await app.call('GET', `${ORDERS}/${changed.orderId}`);
    assert.equal(res.statusCode, 200, res.body);
    const order = res.json();
    assert.equal(order.customerEmail, 'camper@example.com');
    assert.equal(order.fulfillmentStatus, 'PENDING');
    assert.deepEqual(
      order.lineItems.map((l: { sku: string; quantity: number }) => [l.sku, l.quantity]),
      [['STOVE-1', 2]],
    );
    assert.equal(await stockOf(app.site, product.id), 3);
  });

  test('order.update fulfils the newest PENDING order with a tracked shipment by default', async () => {
    const app = await subscribed(['order.update'], ['website.orders.read']);
    await stocked(app.site, 'STOVE-2', 5);
    const older = await trigger(ctx.api, 'order.create', { websiteId: app.site.websiteId });
    const newer = await trigger(ctx.api, 'order.create', { websiteId: app.site.websiteId });
    const { changed, data } = await fire(app, 'order.update');
    assert.equal(changed.orderId, newer.changed.orderId);
    assert.deepEqual(data, { orderId: newer.changed.orderId, update: 'FULFILLED' });
    const fulfilled = (await app.call('GET', `${ORDERS}/${newer.changed.orderId}`)).json();
    assert.equal(fulfilled.fulfillmentStatus, 'FULFILLED');
    assert.equal(fulfilled.fulfillments.length, 1);
    assert.equal(fulfilled.fulfillments[0].carrierName, 'USPS');
    assert.match(fulfilled.fulfillments[0].trackingNumber, /^9400\d+$/);
    const untouched = (await app.call('GET', `${ORDERS}/${older.changed.orderId}`)).json();
    assert.equal(untouched.fulfillmentStatus, 'PENDING');
    // The buyer is told, as the owner's fulfil form tells by default.
    const notices = await ctx.db
      .selectFrom('emails')
      .select('text')
      .where('order_id', '=', String(newer.changed.orderId))
      .where('kind', '=', 'shipping_notice')
      .execute();
    assert.equal(notices.length, 1);
    assert.ok(notices[0]!.text.includes(fulfilled.fulfillments[0].trackingNumber));
  });

  test('order.update CANCELED cancels the order named and puts its items back in stock', async () => {
    const app = await subscribed(['order.update'], ['website.orders.read']);
    const product = await stocked(app.site, 'STOVE-3', 4);
    const placed = await trigger(ctx.api, 'order.create', {
      websiteId: app.site.websiteId,
      sku: 'STOVE-3',
      quantity: 3,
    });
    assert.equal(await stockOf(app.site, product.id), 1);
    const { changed, data } = await fire(app, 'order.update', {
      orderId: String(placed.changed.orderId),
      action: 'CANCELED',
    });
    assert.deepEqual(data, { orderId: placed.changed.orderId, update: 'CANCELED' });
    assert.equal(changed.restocked, 3);
    const order = (await app.call('GET', `${ORDERS}/${placed.changed.orderId}`)).json();
    assert.equal(order.fulfillmentStatus, 'CANCELED');
    assert.equal(await stockOf(app.site, product.id), 4);
  });

  test('extension.uninstall revokes the only connected app, which hears of it and whose token stops working', async () => {
    const app = await subscribed(['extension.uninstall'], ['website.products.read']);
    const { changed, data } = await fire(app, 'extension.uninstall');
    assert.deepEqual(data, { clientId: app.app.clientId });
    assert.equal(changed.clientId, app.app.clientId);
    assert.equal(changed.grantsRevoked, 1);
    const res = await app.call('GET', '/1.1/commerce/products');
    assert.equal(res.statusCode, 401, res.body);
    const left = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select('id')
      .where('website_id', '=', app.site.websiteId)
      .execute();
    assert.deepEqual(left, [], 'the app loses its subscriptions there');
  });

  test('contact.create, contact.update and contact.delete: the contact as the API reads it, then gone', async () => {
    const app = await subscribed(
      ['contact.create', 'contact.update', 'contact.delete'],
      ['website.contacts'],
    );
    const created = await fire(app, 'contact.create', { email: 'new.contact@example.com' });
    const contactId = String(created.changed.contactId);
    const read = async () => {
      const res = await app.call('GET', `${CONTACTS}/${contactId}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().contact;
    };
    const contact = await read();
    assert.deepEqual(created.data, contact);
    assert.equal(contact.primaryEmail.email, 'new.contact@example.com');
    assert.equal(contact.primaryEmail.acceptsMarketing.acceptsMarketing, false);

    const updated = await fire(app, 'contact.update');
    assert.equal(updated.changed.contactId, contactId, 'the newest contact by default');
    const after = await read();
    assert.equal(after.primaryEmail.acceptsMarketing.acceptsMarketing, true);
    assert.deepEqual(updated.data, after);

    const deleted = await fire(app, 'contact.delete', { contactId });
    assert.equal(deleted.data.id, contactId);
    assert.equal((await app.call('GET', `${CONTACTS}/${contactId}`)).statusCode, 404);
  });

  test('address.create, address.update and address.delete change the address book the API shows', async () => {
    const app = await subscribed(
      ['address.create', 'address.update', 'address.delete'],
      ['website.contacts'],
    );
    const contact = await trigger(ctx.api, 'contact.create', { websiteId: app.site.websiteId });
    const contactId = String(contact.changed.contactId);
    const entries = async () => {
      const res = await app.call('GET', book(contactId));
      assert.equal(res.statusCode, 200, res.body);
      return res.json().addressBook.addressBookEntries as { id: string; address: { line1: string } }[];
    };

    const created = await fire(app, 'address.create');
    assert.equal(created.changed.contactId, contactId);
    const [entry] = await entries();
    assert.ok(entry);
    assert.equal(entry.id, created.changed.addressId);
    assert.equal(created.data.contactId, contactId);
    assert.deepEqual(created.data.addressBookEntries, [entry]);

    const updated = await fire(app, 'address.update', { addressId: entry.id });
    const [replaced] = await entries();
    assert.deepEqual(updated.data.addressBookEntries, [replaced]);

    const deleted = await fire(app, 'address.delete');
    assert.equal(deleted.changed.addressId, entry.id, 'the newest entry by default');
    assert.deepEqual(deleted.data.addressBookEntryIds, [entry.id]);
    assert.deepEqual(await entries(), []);
  });

  test('product.create, product.update and product.delete: a product in stock, renamed, then gone', async () => {
    const app = await subscribed(
      ['product.create', 'product.update', 'product.delete'],
      ['website.products.read'],
    );
    const created = await fire(app, 'product.create', { name: 'Trail Lantern', sku: 'LANTERN-1' });
    const productId = String(created.changed.productId);
    assert.deepEqual(created.data, { productId });
    const read = () => app.call('GET', `/1.1/commerce/products/${productId}`);
    const [product] = (await read()).json().products;
    assert.equal(product.name, 'Trail Lantern');
    assert.equal(product.isVisible, true);
    assert.deepEqual(
      product.variants.map((v: { sku: string; stock: unknown }) => [v.sku, v.stock]),
      [['LANTERN-1', { quantity: 10, unlimited: false }]],
    );

    const renamed = await fire(app, 'product.update');
    assert.deepEqual(renamed.data, { productId });
    assert.equal((await read()).json().products[0].name, 'Trail Lantern (updated)');
    await fire(app, 'product.update', { productId });
    assert.equal((await read()).json().products[0].name, 'Trail Lantern', 'the suffix comes off again');

    const deleted = await fire(app, 'product.delete', { productId });
    assert.deepEqual(deleted.data, { productId });
    assert.equal((await read()).statusCode, 404);
  });

  test('a topic no subscription listens to is still changed, and the answer says none was sent', async () => {
    const site = await ctx.site();
    const result = await trigger(ctx.api, 'product.create', { websiteId: site.websiteId });
    assert.equal(result.notifications.queued, 0);
    assert.match(String(result.notifications.note), /no subscription .* listens to product\.create/);
    const res = await site.call({ method: 'GET', url: `/1.1/commerce/products/${result.changed.productId}` });
    assert.equal(res.statusCode, 200, res.body);
  });

  test('every topic the outbox sends has a trigger', () => {
    assert.deepEqual(Object.keys(TRIGGERS).sort(), [...TOPICS].sort());
  });
});

/** What a refused trigger must leave as it was: orders, stock, contacts, products, grants, outbox. */
async function state(websiteId: string) {
  const db = ctx.db;
  return {
    orders: await db
      .selectFrom('orders')
      .select(['id', 'fulfillment_status'])
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .execute(),
    stock: await db
      .selectFrom('variants')
      .select(['id', 'stock_quantity'])
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .execute(),
    contacts: await db.selectFrom('profiles').select('id').where('website_id', '=', websiteId).execute(),
    entries: await db
      .selectFrom('address_book_entries')
      .select(['id', 'line1'])
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .execute(),
    products: await db
      .selectFrom('products')
      .select(['id', 'name'])
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .execute(),
    grants: await db
      .selectFrom('oauth_grants')
      .select(['id', 'revoked_at'])
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

/** The trigger is refused with `error`, and the site is as it was. */
async function refused(
  websiteId: string,
  topic: string,
  options: TriggerOptions,
  error: RegExp,
  name: string,
) {
  const before = await state(websiteId);
  await assert.rejects(trigger(ctx.api, topic, { websiteId, ...options }), { name, message: error });
  assert.deepEqual(await state(websiteId), before);
}

describe('a trigger that cannot be made says why and changes nothing', () => {
  test('order.create on a site with nothing in stock', async () => {
    const app = await subscribed(['order.create'], ['website.orders.read']);
    await stocked(app.site, 'EMPTY-1', 0);
    await refused(app.site.websiteId, 'order.create', {}, /has no product in stock/, 'ValidationError');
  });

  test('order.create of more than the SKU has, or of a SKU the site does not sell', async () => {
    const app = await subscribed(['order.create'], ['website.orders.read']);
    await stocked(app.site, 'FEW-1', 1);
    const { websiteId } = app.site;
    await refused(
      websiteId,
      'order.create',
      { sku: 'FEW-1', quantity: 2 },
      /has 1 in stock, fewer than the 2/,
      'ValidationError',
    );
    await refused(
      websiteId,
      'order.create',
      { sku: 'NOPE-1' },
      /no physical product .* has the SKU "NOPE-1"/,
      'NotFound',
    );
  });

  test('order.update on a site with no PENDING order', async () => {
    const app = await subscribed(['order.update'], ['website.orders.read']);
    await stocked(app.site, 'DONE-1', 2);
    const { websiteId } = app.site;
    const placed = await trigger(ctx.api, 'order.create', { websiteId });
    await trigger(ctx.api, 'order.update', { websiteId });
    await refused(
      websiteId,
      'order.update',
      {},
      /has no PENDING order to fulfil or cancel/,
      'ValidationError',
    );
    await refused(
      websiteId,
      'order.update',
      { orderId: String(placed.changed.orderId), action: 'CANCELED' },
      /is FULFILLED: only a PENDING order/,
      'ValidationError',
    );
  });

  test('order.update of an unknown order, or with an unknown action', async () => {
    const app = await subscribed(['order.update'], ['website.orders.read']);
    await stocked(app.site, 'ODD-1', 2);
    const { websiteId } = app.site;
    await trigger(ctx.api, 'order.create', { websiteId });
    const missing = 'ffffffffffffffffffffffff';
    await refused(websiteId, 'order.update', { orderId: missing }, /order not found: f{24}/, 'NotFound');
    await refused(
      websiteId,
      'order.update',
      { action: 'SHIPPED' },
      /action: one of FULFILLED, CANCELED, REFUNDED, MARKED_PENDING, EMAIL_UPDATED, not "SHIPPED"/,
      'ValidationError',
    );
  });

  test('an unknown topic names the topics there are', async () => {
    const site = await ctx.site();
    await stocked(site, 'ANY-1', 2);
    const list = TOPICS.join(', ').replaceAll('.', '\\.');
    await refused(
      site.websiteId,
      'order.explode',
      {},
      new RegExp(`unknown topic "order\\.explode"; the topics are: ${list}$`),
      'ValidationError',
    );
  });

  test('an option the topic does not take', async () => {
    const site = await ctx.site();
    await refused(
      site.websiteId,
      'product.create',
      { orderId: 'x' },
      /^orderId: product\.create takes name, sku$/,
      'ValidationError',
    );
  });

  test('extension.uninstall with two apps connected and none named lists both; naming one not connected too', async () => {
    const first = await connectApp(ctx, ['website.products.read']);
    const second = await connectApp(ctx, ['website.products.read'], {
      app: await registerApp(ctx),
      site: first.site,
    });
    const { websiteId } = first.site;
    const both = new RegExp(
      `^2 apps are connected to website ${websiteId}; name one with clientId: (?=.*${first.app.clientId} \\(Inventory Sync\\))(?=.*${second.app.clientId})`,
    );
    await refused(websiteId, 'extension.uninstall', {}, both, 'ValidationError');
    const stranger = await registerApp(ctx);
    await refused(
      websiteId,
      'extension.uninstall',
      { clientId: stranger.clientId },
      /is not connected to website/,
      'NotFound',
    );
  });

  test('contact, address and product triggers on a site that has none of them', async () => {
    const site = await ctx.site();
    const { websiteId } = site;
    await refused(
      websiteId,
      'contact.update',
      {},
      /has no contact: trigger contact\.create first/,
      'ValidationError',
    );
    await refused(websiteId, 'address.create', {}, /has no contact/, 'ValidationError');
    await refused(websiteId, 'address.delete', {}, /has no address book entry/, 'ValidationError');
    await refused(
      websiteId,
      'product.update',
      {},
      /has no product: trigger product\.create first/,
      'ValidationError',
    );
    await refused(
      websiteId,
      'product.delete',
      { productId: 'ffffffffffffffffffffffff' },
      /product not found/,
      'NotFound',
    );
  });

  test('a website that does not exist', async () => {
    await assert.rejects(trigger(ctx.api, 'product.create', { websiteId: 'ffffffffffffffffffffffff' }), {
      name: 'NotFound',
      message: 'website not found: ffffffffffffffffffffffff',
    });
  });
});
