import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConflictError, NotFoundError, ValidationError, type Contact } from '../../src/index.ts';
import { startServer, times, type Server } from './server.ts';

/** client.contacts and client.contacts.addressBook against the real server. */

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const body = (i: number, overrides: Partial<{ firstName: string; lastName: string }> = {}) => ({
  firstName: `Person${String(i).padStart(2, '0')}`,
  lastName: 'Sdk',
  locale: 'en-US',
  primaryEmail: { email: `person${i}@example.com`, acceptsMarketing: i % 2 === 0 },
  ...overrides,
});

describe('client.contacts', () => {
  test('create, get, update (merge patch), delete; a duplicate e-mail is a ConflictError', async () => {
    const { contacts } = server.client;
    const created = await contacts.create(body(100));
    assert.match(created.id, /^[0-9a-f]{24}$/);
    assert.deepEqual(await contacts.get(created.id), created);
    const updated = await contacts.update(created.id, { lastName: 'Patched', locale: null });
    assert.deepEqual([updated.firstName, updated.lastName, updated.locale], ['Person100', 'Patched', null]);
    await assert.rejects(contacts.create(body(100)), ConflictError);
    await assert.rejects(
      contacts.create({ ...body(101), primaryEmail: { email: 'nobody' } }),
      ValidationError,
    );
    await contacts.delete(created.id);
    await assert.rejects(contacts.get(created.id), NotFoundError);
  });

  test('list and query page with for await, following cursors', async () => {
    const { contacts } = server.client;
    await times(12, (i) => contacts.create(body(i)));
    const listed: Contact[] = [];
    for await (const contact of contacts.list({ pageSize: '5' })) listed.push(contact);
    assert.equal(listed.length, 12);
    const first = await contacts.list({ pageSize: '5' });
    assert.equal(first.items.length, 5);
    assert.equal(first.pagination.hasNextPage, true);

    const found: string[] = [];
    const query = contacts.query({
      pageSize: 2,
      sortField: 'FIRST_NAME',
      sortDirection: 'DESCENDING',
      acceptsMarketingWithDate: { acceptsMarketing: true },
    });
    for await (const contact of query) found.push(contact.firstName);
    assert.deepEqual(found, ['Person10', 'Person08', 'Person06', 'Person04', 'Person02', 'Person00']);
    await assert.rejects(contacts.query({ sortField: 'AGE' }), ValidationError);
  });
});

describe('client.contacts.addressBook', () => {
  test('create, get, replace, list, delete with the default rules', async () => {
    const { contacts } = server.client;
    const contact = await contacts.create(body(200));
    const address = { line1: '1 Main St', city: 'Dallas', countryCode: 'US' };
    const first = await contacts.addressBook.create(contact.id, { address });
    assert.equal(first.defaultShipping, true);
    const second = await contacts.addressBook.create(contact.id, { address: { ...address, city: 'Austin' } });
    assert.deepEqual(await contacts.addressBook.get(contact.id, second.id), second);
    const replaced = await contacts.addressBook.replace(contact.id, second.id, {
      address: { countryCode: 'MX', city: 'Monterrey' },
      defaultShipping: true,
    });
    assert.equal(replaced.defaultShipping, true);
    assert.equal(replaced.address.line1, null);
    const page = await contacts.addressBook.list(contact.id);
    assert.equal(page.addressBook.defaultShippingAddressId, second.id);
    const ids: string[] = [];
    for await (const entry of contacts.addressBook.list(contact.id, { pageSize: '1' })) ids.push(entry.id);
    assert.deepEqual(ids, [second.id, first.id]);
    await contacts.addressBook.delete(contact.id, second.id);
    assert.equal((await contacts.get(contact.id)).defaultShippingAddress?.id, first.id);
    await assert.rejects(contacts.addressBook.get(contact.id, second.id), NotFoundError);
  });
});
