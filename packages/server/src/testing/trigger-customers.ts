import { createEntry, deleteEntry, replaceEntry } from '../customers/address-book.service.ts';
import { checkEntryId } from '../customers/address-book.read.ts';
import {
  checkContactId,
  createContact,
  deleteContact,
  getContact,
  patchContact,
} from '../customers/contacts.service.ts';
import { ValidationError, NotFound } from '../shared/errors.ts';
import { bookAddress, madeUpEmail, madeUpPerson } from './made-up-people.ts';
import type { Topic } from '../webhooks/topics.ts';
import type { TopicTrigger, TriggerDeps } from './trigger-kinds.ts';
import * as repo from './triggers.repo.ts';

/** Contacts and their address books, changed through the contacts services as the API changes them. */

/** The contact named, or the newest of the website. */
async function contactOf(
  deps: TriggerDeps,
  websiteId: string,
  contactId: string | undefined,
): Promise<string> {
  if (contactId !== undefined) return checkContactId(contactId);
  const newest = await repo.newestContact(deps.db, websiteId);
  if (!newest) throw new ValidationError(`website ${websiteId} has no contact: trigger contact.create first`);
  return newest;
}

/** The entry named (checked against the contact when both are), or the newest. */
async function entryOf(
  deps: TriggerDeps,
  websiteId: string,
  options: { contactId?: string; addressId?: string },
): Promise<{ contactId: string; addressBookEntryId: string }> {
  if (options.addressId !== undefined) {
    const addressBookEntryId = checkEntryId(options.addressId);
    const contactId = await repo.entryContact(deps.db, websiteId, addressBookEntryId);
    if (!contactId || (options.contactId !== undefined && contactId !== checkContactId(options.contactId))) {
      throw new NotFound(`address book entry not found: ${options.addressId}`);
    }
    return { contactId, addressBookEntryId };
  }
  const contactId = options.contactId === undefined ? undefined : checkContactId(options.contactId);
  const newest = await repo.newestEntry(deps.db, websiteId, contactId);
  if (!newest) {
    const whose = contactId ? `contact ${contactId}` : `website ${websiteId}`;
    throw new ValidationError(`${whose} has no address book entry: trigger address.create first`);
  }
  return { contactId: newest.contact_id, addressBookEntryId: newest.id };
}

export const CUSTOMER_TRIGGERS = {
  'contact.create': {
    options: ['email'],
    async run(deps, websiteId, options) {
      const person = madeUpPerson(deps.ids);
      const contact = await createContact(deps, websiteId, {
        firstName: person.firstName,
        lastName: person.lastName,
        locale: 'en-US',
        primaryEmail: { email: options.email ?? madeUpEmail(person, deps.ids), acceptsMarketing: false },
      });
      return {
        changed: { contactId: contact.id, email: contact.primaryEmail.email },
        data: { id: contact.id },
      };
    },
  },
  'contact.update': {
    options: ['contactId'],
    async run(deps, websiteId, options) {
      const contactId = await contactOf(deps, websiteId, options.contactId);
      const before = await getContact(deps, websiteId, contactId);
      const acceptsMarketing = !before.primaryEmail.acceptsMarketing.acceptsMarketing;
      await patchContact(deps, websiteId, contactId, { primaryEmail: { acceptsMarketing } });
      return { changed: { contactId, acceptsMarketing }, data: { id: contactId } };
    },
  },
  'contact.delete': {
    options: ['contactId'],
    async run(deps, websiteId, options) {
      const contactId = await contactOf(deps, websiteId, options.contactId);
      await deleteContact(deps, websiteId, contactId);
      return { changed: { contactId }, data: { id: contactId } };
    },
  },
  'address.create': {
    options: ['contactId'],
    async run(deps, websiteId, options) {
      const contactId = await contactOf(deps, websiteId, options.contactId);
      const entry = await createEntry(deps, websiteId, contactId, {
        address: bookAddress(madeUpPerson(deps.ids)),
      });
      return {
        changed: { contactId, addressId: entry.id },
        data: { contactId, addressBookEntries: [{ id: entry.id }] },
      };
    },
  },
  'address.update': {
    options: ['addressId', 'contactId'],
    async run(deps, websiteId, options) {
      const ids = await entryOf(deps, websiteId, options);
      await replaceEntry(deps, websiteId, ids, { address: bookAddress(madeUpPerson(deps.ids)) });
      return {
        changed: { contactId: ids.contactId, addressId: ids.addressBookEntryId },
        data: { contactId: ids.contactId, addressBookEntries: [{ id: ids.addressBookEntryId }] },
      };
    },
  },
  'address.delete': {
    options: ['addressId', 'contactId'],
    async run(deps, websiteId, options) {
      const ids = await entryOf(deps, websiteId, options);
      await deleteEntry(deps, websiteId, ids);
      return {
        changed: { contactId: ids.contactId, addressId: ids.addressBookEntryId },
        data: { contactId: ids.contactId, addressBookEntryIds: [ids.addressBookEntryId] },
      };
    },
  },
} satisfies Partial<Record<Topic, TopicTrigger>>;
