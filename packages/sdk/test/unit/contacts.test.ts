import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Emporium } from '../../src/index.ts';
import {
  fakeFetch,
  instantSleep,
  json,
  networkError,
  type Answer,
  type SeenRequest,
} from '../helpers/fake-fetch.ts';

const BASE = 'https://api.example.test';
const contact = (id: string) => ({ id, firstName: 'Ada' });

function make(handler: (request: SeenRequest, index: number) => Answer) {
  const fake = fakeFetch(handler);
  const { sleep } = instantSleep();
  const client = new Emporium({
    userAgent: 'sdk-tests/1.0',
    baseUrl: BASE,
    apiKey: 'k',
    fetch: fake.fetch,
    sleep,
  });
  return { client, calls: fake.calls };
}

const page = (ids: string[], next: string | null) =>
  json(200, {
    contacts: ids.map(contact),
    pagination: {
      hasNextPage: next !== null,
      nextPageCursor: next,
      nextPageUrl: next && `${BASE}/v1/contacts?cursor=${next}`,
    },
  });

describe('contacts', () => {
  test('update is a PATCH with application/merge-patch+json, retried after a lost answer', async () => {
    const { client, calls } = make((_r, i) =>
      i === 0 ? networkError() : json(200, { contact: contact('c1') }),
    );
    const updated = await client.contacts.update('c1', { locale: null });
    assert.deepEqual(updated, contact('c1'));
    assert.equal(calls.length, 2);
    assert.equal(calls[1]!.method, 'PATCH');
    assert.equal(calls[1]!.url.pathname, '/v1/contacts/c1');
    assert.equal(calls[1]!.headers.get('content-type'), 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(calls[1]!.body as string), { locale: null });
  });

  test('create is not retried after a lost answer', async () => {
    const { client, calls } = make(() => networkError());
    await assert.rejects(
      client.contacts.create({
        firstName: 'A',
        lastName: 'B',
        locale: null,
        primaryEmail: { email: 'a@b.co' },
      }),
    );
    assert.equal(calls.length, 1);
  });

  test('query sends its body first, then each cursor alone; for await yields every contact', async () => {
    const { client, calls } = make((r) => {
      const body = JSON.parse(r.body as string);
      return body.cursor === 'next' ? page(['c3'], null) : page(['c1', 'c2'], 'next');
    });
    const ids: string[] = [];
    for await (const c of client.contacts.query({ searchString: 'ada', pageSize: 2 })) ids.push(c.id);
    assert.deepEqual(ids, ['c1', 'c2', 'c3']);
    assert.deepEqual(
      calls.map((c) => [c.method, c.url.pathname, JSON.parse(c.body as string)]),
      [
        ['POST', '/v1/contacts/query', { searchString: 'ada', pageSize: 2 }],
        ['POST', '/v1/contacts/query', { cursor: 'next' }],
      ],
    );
  });

  test('the address book: list follows cursors; replace is a PUT; entries by path', async () => {
    const { client, calls } = make((r) => {
      if (r.method === 'PUT') return json(200, { addressBookEntry: { id: 'e1' } });
      const second = r.url.searchParams.get('cursor') === 'n';
      return json(200, {
        addressBook: {
          addressBookEntries: [{ id: second ? 'e2' : 'e1' }],
          defaultShippingAddressId: second ? null : 'e1',
        },
        pagination: { hasNextPage: !second, nextPageCursor: second ? null : 'n', nextPageUrl: null },
      });
    });
    const ids: string[] = [];
    for await (const e of client.contacts.addressBook.list('c1', { pageSize: '1' })) ids.push(e.id);
    assert.deepEqual(ids, ['e1', 'e2']);
    await client.contacts.addressBook.replace('c1', 'e1', { address: { countryCode: 'US' } });
    assert.deepEqual(
      calls.map((c) => `${c.method} ${c.url.pathname}${c.url.search}`),
      [
        'GET /v1/contacts/c1/address-book?pageSize=1',
        'GET /v1/contacts/c1/address-book?cursor=n',
        'PUT /v1/contacts/c1/address-book/e1',
      ],
    );
  });
});
