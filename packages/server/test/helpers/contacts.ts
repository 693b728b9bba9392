import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  AddressBookEntryEnvelope,
  AddressBookPage,
  ContactEnvelope,
  ContactPage,
  type AddressBookEntryT,
  type ContactT,
} from '../../src/customers/contacts.schemas.ts';
import { assertShape } from './shape.ts';
import type { Site, TestContext } from './test-app.ts';

export const CONTACTS = '/v1/contacts';
export const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export const uniqueEmail = (name = 'p') => `${name}-${randomBytes(4).toString('hex')}@example.com`;

export function contactBody(overrides: Record<string, unknown> = {}, email = uniqueEmail()) {
  return {
    firstName: 'Ada',
    lastName: 'Lovelace',
    locale: 'en-GB',
    primaryEmail: { email, acceptsMarketing: false },
    ...overrides,
  };
}

export async function createContact(site: Site, body: object = contactBody()): Promise<ContactT> {
  const res = await site.call({ method: 'POST', url: CONTACTS, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  assertShape(ContactEnvelope, res.json());
  return res.json().contact;
}

export async function getContact(site: Site, id: string): Promise<ContactT> {
  const res = await site.call({ method: 'GET', url: `${CONTACTS}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  assertShape(ContactEnvelope, res.json());
  return res.json().contact;
}

export function patch(site: Site, id: string, body: object) {
  return site.call({
    method: 'PATCH',
    url: `${CONTACTS}/${id}`,
    headers: { 'content-type': 'application/merge-patch+json' },
    payload: JSON.stringify(body),
  });
}

export async function query(site: Site, body: object) {
  const res = await site.call({ method: 'POST', url: `${CONTACTS}/query`, payload: body });
  assert.equal(res.statusCode, 200, res.body);
  assertShape(ContactPage, res.json());
  return res.json() as {
    contacts: ContactT[];
    pagination: { nextPageCursor: string | null; hasNextPage: boolean; nextPageUrl: string | null };
  };
}

export const address = (overrides: Record<string, unknown> = {}) => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  line1: '12 Analytical Way',
  line2: null,
  city: 'Portland',
  region: 'OR',
  postalCode: '97205',
  countryCode: 'US',
  phoneNumber: '+1 555 0100',
  ...overrides,
});

export const book = (id: string) => `${CONTACTS}/${id}/address-book`;

export async function addEntry(site: Site, contactId: string, body: object): Promise<AddressBookEntryT> {
  const res = await site.call({ method: 'POST', url: book(contactId), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  assertShape(AddressBookEntryEnvelope, res.json());
  return res.json().addressBookEntry;
}

export async function bookPage(site: Site, contactId: string, q: Record<string, string> = {}) {
  const res = await site.call({ method: 'GET', url: book(contactId), query: q });
  assert.equal(res.statusCode, 200, res.body);
  assertShape(AddressBookPage, res.json());
  return res.json() as {
    addressBook: { addressBookEntries: AddressBookEntryT[]; defaultShippingAddressId: string | null };
    pagination: { nextPageCursor: string | null; hasNextPage: boolean; nextPageUrl: string | null };
  };
}

/** The notifications queued for the website, oldest first, as [topic, data]. */
export async function queued(ctx: TestContext, site: Site): Promise<[string, Record<string, unknown>][]> {
  const rows = await ctx.db
    .selectFrom('webhook_deliveries')
    .select(['topic', 'body', 'created_on', 'id'])
    .where('website_id', '=', site.websiteId)
    .orderBy('created_on')
    .execute();
  return rows.map((r) => [r.topic, JSON.parse(r.body).data]);
}
