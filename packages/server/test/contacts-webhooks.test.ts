import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CONTACTS,
  address,
  book,
  contactBody,
  createContact,
  getContact,
  patch,
  queued,
  uniqueEmail,
} from './helpers/contacts.ts';
import { customLine, importBody, importOrder } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/** contact.* and address.* notifications (platform-surface 3), queued in the change's transaction. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', queue: true });
});
after(() => ctx.close());

const TOPICS = [
  'contact.create',
  'contact.update',
  'contact.delete',
  'address.create',
  'address.update',
  'address.delete',
];
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A site whose app listens to every contact and address topic. */
async function subscribed(): Promise<Site> {
  const connected = await connectApp(ctx, ['website.contacts', 'website.orders']);
  const res = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: 'https://hooks.example.com/contacts',
    topics: TOPICS,
  });
  assert.equal(res.statusCode, 201, res.body);
  return connected.site;
}

/** What was queued since `from` notifications. */
const since = async (site: Site, from: number) => (await queued(ctx, site)).slice(from);

describe('contact topics', () => {
  test('create, patch and delete send the contact, the contact after, and { id, deletedOn }', async () => {
    const site = await subscribed();
    const created = await createContact(site);
    assert.deepEqual(await since(site, 0), [['contact.create', created]]);

    const res = await patch(site, created.id, { firstName: 'Augusta' });
    const updated = res.json().contact;
    assert.deepEqual(await since(site, 1), [['contact.update', updated]]);

    await patch(site, created.id, { firstName: 'Augusta' });
    assert.deepEqual(await since(site, 2), [], 'a patch that changes nothing sends nothing');

    await site.call({ method: 'DELETE', url: `${CONTACTS}/${created.id}` });
    const [[topic, data]] = (await since(site, 2)) as [[string, { id: string; deletedOn: string }]];
    assert.equal(topic, 'contact.delete');
    assert.deepEqual(Object.keys(data), ['id', 'deletedOn']);
    assert.equal(data.id, created.id);
    assert.match(data.deletedOn, MICROS);
  });

  test('a refused write sends nothing', async () => {
    const site = await subscribed();
    const taken = await createContact(site);
    const before = (await queued(ctx, site)).length;
    await site.call({ method: 'POST', url: CONTACTS, payload: contactBody({}, taken.primaryEmail.email) });
    await patch(site, taken.id, { firstName: null });
    assert.equal((await queued(ctx, site)).length, before);
  });

  test("a buyer's first order sends contact.create and address.create; a later order that fills the names sends contact.update", async () => {
    const site = await subscribed();
    const email = uniqueEmail('buyer');
    const shippingAddress = {
      firstName: 'Ada',
      lastName: 'L',
      address1: '1 Main St',
      city: 'Dallas',
      countryCode: 'US',
    };
    const first = (
      await importOrder(site, importBody([customLine('A')], { customerEmail: email, shippingAddress }))
    ).json();
    const contact = await getContact(site, first.customerId);
    const events = await since(site, 0);
    assert.deepEqual(
      events.map(([t]) => t),
      ['contact.create', 'address.create'],
      'order.create is not subscribed here',
    );
    assert.deepEqual(events[0]![1], contact);
    assert.deepEqual(Object.keys(events[1]![1]), ['contactId', 'addressBookEntries', 'createdOn']);
    assert.deepEqual(events[1]![1].addressBookEntries, [contact.defaultShippingAddress]);

    // Names come from the billing address; these are already known: no change, no event.
    await importOrder(site, importBody([customLine('B')], { customerEmail: email, shippingAddress }));
    assert.deepEqual(await since(site, 2), []);

    const bare = uniqueEmail('bare');
    const nameless = await createContact(site, contactBody({ firstName: '', lastName: '' }, bare));
    const from = (await queued(ctx, site)).length;
    await importOrder(
      site,
      importBody([customLine('C')], {
        customerEmail: bare,
        billingAddress: { firstName: 'Grace', lastName: 'Hopper', countryCode: 'US' },
      }),
    );
    const after = await getContact(site, nameless.id);
    assert.deepEqual(await since(site, from), [['contact.update', after]]);
  });
});

describe('address topics', () => {
  test('create, update, delete with the entries and the contact.update of a moved default', async () => {
    const site = await subscribed();
    const contact = await createContact(site);
    let from = 1;
    const add = async (body: object) => {
      const res = await site.call({ method: 'POST', url: book(contact.id), payload: body });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().addressBookEntry;
    };
    const first = await add({ address: address() });
    let events = await since(site, from);
    assert.deepEqual(
      events.map(([t]) => t),
      ['address.create', 'contact.update'],
    );
    assert.equal(events[0]![1].contactId, contact.id);
    assert.deepEqual(events[0]![1].addressBookEntries, [first]);
    assert.match(String(events[0]![1].createdOn), MICROS);
    const firstMade = events[0]![1].createdOn;
    assert.deepEqual(await getContact(site, contact.id), events[1]![1]);
    from += events.length;

    const second = await add({ address: address({ city: 'Salem' }), defaultShipping: true });
    events = await since(site, from);
    assert.deepEqual(
      events.map(([t]) => t),
      ['address.create', 'address.update', 'contact.update'],
    );
    assert.deepEqual(events[0]![1].addressBookEntries, [second]);
    assert.deepEqual(events[1]![1].addressBookEntries, [{ ...first, defaultShipping: false }]);
    // address.update: { contactId, addressBookEntries, createdOn, updatedOn } (platform-surface 3),
    // createdOn the creation of the entry it is about, updatedOn the change's time.
    assert.deepEqual(Object.keys(events[1]![1]), [
      'contactId',
      'addressBookEntries',
      'createdOn',
      'updatedOn',
    ]);
    assert.equal(events[1]![1].createdOn, firstMade);
    assert.equal(events[1]![1].updatedOn, events[0]![1].createdOn, 'when the second entry took the default');
    assert.ok(String(events[1]![1].updatedOn) > String(firstMade));
    from += events.length;

    const put = await site.call({
      method: 'PUT',
      url: `${book(contact.id)}/${first.id}`,
      payload: { address: address({ city: 'Bend' }) },
    });
    events = await since(site, from);
    assert.deepEqual(events, [
      [
        'address.update',
        {
          contactId: contact.id,
          addressBookEntries: [put.json().addressBookEntry],
          createdOn: firstMade,
          updatedOn: events[0]![1].updatedOn,
        },
      ],
    ]);
    from += events.length;

    await site.call({ method: 'DELETE', url: `${book(contact.id)}/${second.id}` });
    events = await since(site, from);
    assert.deepEqual(
      events.map(([t]) => t),
      ['address.delete', 'address.update', 'contact.update'],
    );
    assert.deepEqual(Object.keys(events[0]![1]), ['contactId', 'addressBookEntryIds', 'deletedOn']);
    assert.deepEqual(events[0]![1].addressBookEntryIds, [second.id]);
    assert.deepEqual(events[1]![1].addressBookEntries, [
      { ...put.json().addressBookEntry, defaultShipping: true },
    ]);
    assert.equal(events[1]![1].createdOn, firstMade, 'the promoted entry was made first');
    assert.match(String(events[1]![1].updatedOn), MICROS);
    assert.equal(events[1]![1].updatedOn, events[0]![1].deletedOn);
  });
});
