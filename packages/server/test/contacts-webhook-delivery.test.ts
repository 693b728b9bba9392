import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { notificationBody } from '../src/webhooks/outbox.ts';
import { resendDelivery } from '../src/webhooks/deliveries.service.ts';
import { address, book, createContact } from './helpers/contacts.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';
import { assertSigned, connectApp, Receiver, type Received } from './helpers/webhooks.ts';

/**
 * Contact and address notifications reach a receiver over HTTP: the whole envelope of
 * platform-surface 3 with its 24-hex notification id, signed with the subscription's secret.
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

const OBJECT_ID = /^[0-9a-f]{24}$/;
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

async function subscribed(topics: string[]) {
  const connected = await connectApp(ctx, ['website.contacts']);
  const res = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: receiver.url,
    topics,
  });
  assert.equal(res.statusCode, 201, res.body);
  return { ...connected, subscription: res.json() as { id: string; secret: string } };
}

/** The receiver's next `count` requests after those it already has. */
function next(count = 1): Promise<Received[]> {
  const seen = receiver.received.length;
  return receiver.got(seen + count).then((all) => all.slice(seen));
}

describe('contact and address notifications over HTTP', () => {
  test('contact.create and address.create arrive with the full envelope, a 24-hex id and a valid signature', async () => {
    const app = await subscribed(['contact.create', 'address.create']);
    const site = app.site;
    let arriving = next();
    const contact = await createContact(site);
    const [created] = await arriving;
    assert.deepEqual(Object.keys(created!.json), [
      'id',
      'websiteId',
      'subscriptionId',
      'topic',
      'createdOn',
      'data',
    ]);
    assert.match(created!.json.id, OBJECT_ID);
    assert.equal(created!.json.websiteId, site.websiteId);
    assert.equal(created!.json.subscriptionId, app.subscription.id);
    assert.equal(created!.json.topic, 'contact.create');
    assert.ok(!Number.isNaN(Date.parse(created!.json.createdOn)), created!.json.createdOn);
    assert.deepEqual(created!.json.data, contact);
    assertSigned(created!, app.subscription.secret);

    arriving = next();
    const res = await site.call({ method: 'POST', url: book(contact.id), payload: { address: address() } });
    assert.equal(res.statusCode, 201, res.body);
    const [added] = await arriving;
    assert.match(added!.json.id, OBJECT_ID);
    assert.notEqual(added!.json.id, created!.json.id);
    assert.equal(added!.json.topic, 'address.create');
    assert.equal(added!.json.subscriptionId, app.subscription.id);
    const data = added!.json.data as { contactId: string; addressBookEntries: unknown[]; createdOn: string };
    assert.deepEqual(Object.keys(data), ['contactId', 'addressBookEntries', 'createdOn']);
    assert.equal(data.contactId, contact.id);
    assert.deepEqual(data.addressBookEntries, [res.json().addressBookEntry]);
    assert.match(data.createdOn, MICROS);
    assertSigned(added!, app.subscription.secret);
  });

  test('a notification queued before ids were 24 hex keeps its UUID and can still be sent again', async () => {
    const app = await subscribed(['contact.create']);
    const id = randomUUID();
    const now = ctx.clock.now();
    const body = notificationBody({
      id,
      websiteId: app.site.websiteId,
      subscriptionId: app.subscription.id,
      topic: 'contact.create',
      createdOn: now,
      data: {},
    });
    const subscription = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select(['client_id', 'secret_version'])
      .where('id', '=', app.subscription.id)
      .executeTakeFirstOrThrow();
    await ctx.db
      .insertInto('webhook_deliveries')
      .values({
        id,
        website_id: app.site.websiteId,
        client_id: subscription.client_id,
        subscription_id: app.subscription.id,
        topic: 'contact.create',
        endpoint_url: receiver.url,
        secret_version: subscription.secret_version,
        body,
        status: 'DELIVERED',
        attempts: 1,
        created_on: now,
        retry_until: now,
        next_attempt_at: null,
        leased_until: null,
        completed_on: now,
        last_status_code: 200,
        last_error: null,
      })
      .execute();
    const arriving = next();
    await resendDelivery(ctx.api, app.site.websiteId, id);
    const [again] = await arriving;
    assert.equal(again!.json.id, id);
    assert.equal(again!.raw.toString('utf8'), body);
    assertSigned(again!, app.subscription.secret);
  });
});
