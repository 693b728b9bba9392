import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COUNTRY_CODES } from '../src/customers/country-codes.ts';
import { address, addEntry, book, bookPage, createContact, getContact } from './helpers/contacts.ts';
import { customLine, importBody, importOrder } from './helpers/orders.ts';
import { assertError } from './helpers/shape.ts';
import { BASE_URL, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** Address books (platform-surface 2.6.2): entries and the default shipping address rules. */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(() => ctx.close());

const entryUrl = (contactId: string, id: string) => `${book(contactId)}/${id}`;
const defaults = async (contactId: string) =>
  (await bookPage(site, contactId)).addressBook.addressBookEntries
    .filter((e) => e.defaultShipping)
    .map((e) => e.id);

describe('default shipping address', () => {
  test('the first entry is default even when it asks not to be; the contact shows it', async () => {
    const contact = await createContact(site);
    const first = await addEntry(site, contact.id, { address: address(), defaultShipping: false });
    assert.deepEqual(first.defaultShipping, true);
    assert.deepEqual(first.address, address());
    assert.deepEqual(Object.keys(first), ['id', 'defaultShipping', 'address']);
    assert.deepEqual((await getContact(site, contact.id)).defaultShippingAddress, first);
    const second = await addEntry(site, contact.id, { address: address({ city: 'Salem' }) });
    assert.equal(second.defaultShipping, false, 'defaultShipping defaults to false');
    assert.deepEqual(await defaults(contact.id), [first.id]);
  });

  test('defaultShipping true moves the default; false on the default changes nothing', async () => {
    const contact = await createContact(site);
    const first = await addEntry(site, contact.id, { address: address() });
    const second = await addEntry(site, contact.id, {
      address: address({ city: 'Salem' }),
      defaultShipping: true,
    });
    assert.equal(second.defaultShipping, true);
    assert.deepEqual(await defaults(contact.id), [second.id]);

    const kept = await site.call({
      method: 'PUT',
      url: entryUrl(contact.id, second.id),
      payload: { address: address({ city: 'Eugene' }), defaultShipping: false },
    });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.deepEqual(kept.json().addressBookEntry, {
      id: second.id,
      defaultShipping: true,
      address: address({ city: 'Eugene' }),
    });

    const moved = await site.call({
      method: 'PUT',
      url: entryUrl(contact.id, first.id),
      payload: { address: address(), defaultShipping: true },
    });
    assert.equal(moved.json().addressBookEntry.defaultShipping, true);
    assert.deepEqual(await defaults(contact.id), [first.id]);
    assert.equal((await getContact(site, contact.id)).defaultShippingAddress?.id, first.id);
  });

  test('PUT replaces the whole address: a field left out becomes null', async () => {
    const contact = await createContact(site);
    const entry = await addEntry(site, contact.id, { address: address() });
    const res = await site.call({
      method: 'PUT',
      url: entryUrl(contact.id, entry.id),
      payload: { address: { countryCode: 'DE', city: 'Berlin' } },
    });
    assert.deepEqual(res.json().addressBookEntry.address, {
      firstName: null,
      lastName: null,
      line1: null,
      line2: null,
      city: 'Berlin',
      region: null,
      postalCode: null,
      countryCode: 'DE',
      phoneNumber: null,
    });
    const got = await site.call({ method: 'GET', url: entryUrl(contact.id, entry.id) });
    assert.deepEqual(got.json(), res.json());
  });

  test('deleting the default promotes the oldest entry left; deleting the last leaves none', async () => {
    const contact = await createContact(site);
    const a = await addEntry(site, contact.id, { address: address({ city: 'A' }) });
    const b = await addEntry(site, contact.id, { address: address({ city: 'B' }) });
    const c = await addEntry(site, contact.id, { address: address({ city: 'C' }), defaultShipping: true });
    const gone = await site.call({ method: 'DELETE', url: entryUrl(contact.id, c.id) });
    assert.equal(gone.statusCode, 204);
    assert.deepEqual(await defaults(contact.id), [a.id]);
    assert.equal((await site.call({ method: 'DELETE', url: entryUrl(contact.id, b.id) })).statusCode, 204);
    assert.equal((await site.call({ method: 'DELETE', url: entryUrl(contact.id, a.id) })).statusCode, 204);
    assert.equal((await getContact(site, contact.id)).defaultShippingAddress, null);
    assert.deepEqual((await bookPage(site, contact.id)).addressBook, {
      addressBookEntries: [],
      defaultShippingAddressId: null,
    });
    assert.equal((await site.call({ method: 'GET', url: entryUrl(contact.id, a.id) })).statusCode, 404);
  });

  test('parallel creates on an empty book make exactly one default', async () => {
    const contact = await createContact(site);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        addEntry(site, contact.id, { address: address({ city: `City ${i}` }) }),
      ),
    );
    assert.equal((await defaults(contact.id)).length, 1);
  });
});

describe('pages', () => {
  test('the default is first on the first page; defaultShippingAddressId only where it is; cursors to the end', async () => {
    const contact = await createContact(site);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await addEntry(site, contact.id, { address: address({ city: `C${i}` }) })).id);
    const last = ids[4]!;
    await site.call({
      method: 'PUT',
      url: entryUrl(contact.id, last),
      payload: { address: address({ city: 'C4' }), defaultShipping: true },
    });
    const first = await bookPage(site, contact.id, { pageSize: '2' });
    assert.deepEqual(
      first.addressBook.addressBookEntries.map((e) => e.id),
      [last, ids[0]],
    );
    assert.equal(first.addressBook.defaultShippingAddressId, last);
    assert.equal(
      first.pagination.nextPageUrl,
      `${BASE_URL}${book(contact.id)}?cursor=${encodeURIComponent(first.pagination.nextPageCursor!)}`,
    );
    const second = await bookPage(site, contact.id, { cursor: first.pagination.nextPageCursor! });
    assert.deepEqual(
      second.addressBook.addressBookEntries.map((e) => e.id),
      [ids[1], ids[2]],
    );
    assert.equal(second.addressBook.defaultShippingAddressId, null);
    const third = await bookPage(site, contact.id, {
      cursor: second.pagination.nextPageCursor!,
      pageSize: '0',
    });
    assert.deepEqual(
      third.addressBook.addressBookEntries.map((e) => e.id),
      [ids[3]],
    );
    assert.deepEqual(third.pagination, { hasNextPage: false, nextPageCursor: null, nextPageUrl: null });
    const other = await createContact(site);
    const foreign = await site.call({
      method: 'GET',
      url: book(other.id),
      query: { cursor: first.pagination.nextPageCursor! },
    });
    assertError(foreign, 400, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /cursor/);
    for (const pageSize of ['1001', 'x']) {
      assertError(
        await site.call({ method: 'GET', url: book(contact.id), query: { pageSize } }),
        400,
        'INVALID_REQUEST_ERROR',
        'INVALID_ARGUMENT',
        /pageSize/,
      );
    }
  });
});

describe('bad input', () => {
  test('the 251 country codes are taken, and nothing else; every bad body is a 400 that stores nothing', async () => {
    assert.equal(COUNTRY_CODES.size, 251);
    for (const code of ['XK', 'AN', 'US', 'GB', 'ZW']) assert.ok(COUNTRY_CODES.has(code), code);
    const contact = await createContact(site);
    const cases: [unknown, RegExp][] = [
      [{}, /address/],
      [{ address: {} }, /countryCode/],
      [{ address: address({ countryCode: 'UK' }) }, /countryCode: "UK"/],
      [{ address: address({ countryCode: 'us' }) }, /countryCode/],
      [{ address: address({ countryCode: 'USA' }) }, /countryCode/],
      [{ address: address({ city: 'x'.repeat(201) }) }, /address.city/],
      [{ address: address({ line1: 5 }) }, /address.line1/],
      [{ address: address(), defaultShipping: 'yes' }, /defaultShipping/],
    ];
    for (const [payload, message] of cases) {
      const res = await site.call({ method: 'POST', url: book(contact.id), payload: payload as object });
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assertError(res, 400, 'INVALID_REQUEST_ERROR', res.json().subtype, message);
    }
    assert.deepEqual((await bookPage(site, contact.id)).addressBook.addressBookEntries, []);
    const entry = await addEntry(site, contact.id, { address: address() });
    const put = await site.call({
      method: 'PUT',
      url: entryUrl(contact.id, entry.id),
      payload: { address: address({ countryCode: 'ZZ' }) },
    });
    assert.equal(put.statusCode, 400);
    assert.deepEqual(
      (await site.call({ method: 'GET', url: entryUrl(contact.id, entry.id) })).json().addressBookEntry,
      entry,
    );
  });

  test("unknown contacts and entries, and another contact's entry, are 404", async () => {
    const contact = await createContact(site);
    const other = await createContact(site);
    const theirs = await addEntry(site, other.id, { address: address() });
    const unknown = 'b'.repeat(24);
    for (const [method, url] of [
      ['GET', book(unknown)],
      ['POST', book(unknown)],
      ['GET', entryUrl(contact.id, theirs.id)],
      ['PUT', entryUrl(contact.id, theirs.id)],
      ['DELETE', entryUrl(contact.id, theirs.id)],
      ['GET', entryUrl(contact.id, 'nope')],
    ] as const) {
      const res = await site.call({
        method,
        url,
        ...(method === 'POST' || method === 'PUT' ? { payload: { address: address() } } : {}),
      });
      assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT', /not found/);
    }
    const foreign = await (await ctx.site()).call({ method: 'GET', url: book(other.id) });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await bookPage(site, other.id)).addressBook.addressBookEntries.length, 1);
  });

  test('deleting a contact deletes its address book', async () => {
    const contact = await createContact(site);
    await addEntry(site, contact.id, { address: address() });
    await site.call({ method: 'DELETE', url: `/v1/contacts/${contact.id}` });
    const rows = await ctx.db
      .selectFrom('address_book_entries')
      .select('id')
      .where('contact_id', '=', contact.id)
      .execute();
    assert.deepEqual(rows, []);
  });
});

describe('orders fill the book', () => {
  test("an order's shipping address joins its buyer's book once, the first as default; an equal one is not added", async () => {
    const own = await ctx.site();
    const shipping = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      address1: '1 Main St',
      city: 'Dallas',
      state: 'TX',
      countryCode: 'US',
      postalCode: '75201',
      phone: '555',
    };
    const order = (shippingAddress: object) =>
      importOrder(
        own,
        importBody([customLine('Mug')], { customerEmail: 'buyer@example.com', shippingAddress }),
      );
    const first = (await order(shipping)).json();
    await order(shipping);
    await order({ ...shipping, city: 'Austin' });
    const entries = (await bookPage(own, first.customerId)).addressBook.addressBookEntries;
    assert.deepEqual(
      entries.map((e) => [e.defaultShipping, e.address.city]),
      [
        [true, 'Dallas'],
        [false, 'Austin'],
      ],
    );
    assert.deepEqual(entries[0]!.address, {
      firstName: 'Ada',
      lastName: 'Lovelace',
      line1: '1 Main St',
      line2: null,
      city: 'Dallas',
      region: 'TX',
      postalCode: '75201',
      countryCode: 'US',
      phoneNumber: '555',
    });
  });
});
