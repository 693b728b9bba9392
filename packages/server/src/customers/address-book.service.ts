import type { Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { emit, inTransaction } from '../webhooks/outbox.ts';
import * as repo from './address-book.repo.ts';
import { microsText, toEntry } from './contacts.mapper.ts';
import { lockContact } from './contacts.repo.ts';
import type { AddressBookEntryInput, AddressBookEntryT } from './contacts.schemas.ts';
import { checkEntryId, entry } from './address-book.read.ts';
import { announceChange, checkContactId, readContact, type ContactDeps } from './contacts.service.ts';
import { isCountryCode } from './country-codes.ts';

/**
 * Address books (platform-surface 2.6.2). A book with entries has exactly one default shipping
 * address: the first entry is default whatever it asks, `defaultShipping: true` moves the default,
 * `false` on the default changes nothing, and deleting the default promotes the oldest entry left.
 * Every write holds the contact's row lock, so the rule holds under concurrent writes.
 */

type EntryBody = AddressBookEntryInput['address'];

export function addressColumns(address: EntryBody, field = 'address'): repo.AddressColumns {
  if (!isCountryCode(address.countryCode)) {
    throw new ValidationError(
      `${field}.countryCode: "${address.countryCode}" is not one of the ISO 3166-1 alpha-2 codes (such as US)`,
    );
  }
  return {
    first_name: address.firstName ?? null,
    last_name: address.lastName ?? null,
    line1: address.line1 ?? null,
    line2: address.line2 ?? null,
    city: address.city ?? null,
    region: address.region ?? null,
    postal_code: address.postalCode ?? null,
    country_code: address.countryCode,
    phone_number: address.phoneNumber ?? null,
  };
}

/**
 * The data of an `address.update` (platform-surface 3: `{ contactId, addressBookEntries,
 * createdOn, updatedOn }`): the entries changed, as they are now, the first being the one the
 * change is about (the entry replaced, or the one whose default flag moved). `createdOn` is when
 * that entry was made (the platform does not say whose creation it is; docs/contacts.md), `updatedOn` the
 * change's time, both with microseconds as contacts' times are.
 */
async function updateData(
  trx: Db,
  websiteId: string,
  contactId: string,
  ids: (string | undefined)[],
  updatedOn: string,
) {
  const wanted = ids.filter((id): id is string => id !== undefined);
  const rows = await repo.selectEntries(trx, websiteId, contactId, wanted);
  const subject = rows.find((row) => row.id === wanted[0]) ?? rows[0];
  return {
    contactId,
    addressBookEntries: rows.map(toEntry),
    createdOn: subject?.created_on_text ?? updatedOn,
    updatedOn,
  };
}

export interface Added {
  entry: AddressBookEntryT;
  /** The default it took over, if any. */
  previous: string | undefined;
  createdOn: string;
}

/** Adds an entry in the caller's transaction, under the contact's lock; announceAdded tells of it. */
export async function addEntry(
  trx: Db,
  deps: Omit<ContactDeps, 'db' | 'jobs'>,
  websiteId: string,
  contactId: string,
  address: repo.AddressColumns,
  makeDefault: boolean,
): Promise<Added> {
  const now = deps.clock.now(websiteId);
  const id = deps.ids.objectId();
  const previous = await repo.selectDefaultId(trx, contactId);
  await repo.insertEntry(trx, {
    id,
    website_id: websiteId,
    contact_id: contactId,
    default_shipping: false,
    ...address,
    created_on: now,
  });
  const takesOver = previous === undefined || makeDefault;
  if (takesOver) await repo.setDefault(trx, contactId, id);
  return {
    entry: await entry(trx, websiteId, contactId, id),
    previous: takesOver ? previous : undefined,
    createdOn: microsText(now),
  };
}

/** `address.create` of the entry, and `address.update` of the entry that lost the default to it. */
export async function announceAdded(
  trx: Db,
  deps: Omit<ContactDeps, 'db'>,
  websiteId: string,
  contactId: string,
  added: Added,
): Promise<number> {
  let notified = await emit(trx, deps, {
    websiteId,
    topic: 'address.create',
    data: { contactId, addressBookEntries: [added.entry], createdOn: added.createdOn },
  });
  if (added.previous !== undefined) {
    notified += await emit(trx, deps, {
      websiteId,
      topic: 'address.update',
      data: await updateData(trx, websiteId, contactId, [added.previous], added.createdOn),
    });
  }
  return notified;
}

async function lockedContact(trx: Db, websiteId: string, contactId: string) {
  if (!(await lockContact(trx, websiteId, contactId))) throw new NotFound(`contact not found: ${contactId}`);
  return readContact(trx, websiteId, contactId);
}

export function createEntry(
  deps: ContactDeps,
  websiteId: string,
  contactIdText: string,
  body: AddressBookEntryInput,
): Promise<AddressBookEntryT> {
  const contactId = checkContactId(contactIdText);
  const address = addressColumns(body.address);
  return inTransaction(deps, async (trx, queued) => {
    const before = await lockedContact(trx, websiteId, contactId);
    const added = await addEntry(trx, deps, websiteId, contactId, address, body.defaultShipping === true);
    queued(await announceAdded(trx, deps, websiteId, contactId, added));
    queued(await announceChange(trx, deps, websiteId, before));
    return added.entry;
  });
}

/** PUT: the address replaced; `defaultShipping: true` makes it the default, false on the default is ignored. */
export function replaceEntry(
  deps: ContactDeps,
  websiteId: string,
  ids: { contactId: string; addressBookEntryId: string },
  body: AddressBookEntryInput,
): Promise<AddressBookEntryT> {
  const contactId = checkContactId(ids.contactId);
  const id = checkEntryId(ids.addressBookEntryId);
  const address = addressColumns(body.address);
  return inTransaction(deps, async (trx, queued) => {
    const before = await lockedContact(trx, websiteId, contactId);
    const current = await entry(trx, websiteId, contactId, id);
    const previous = await repo.selectDefaultId(trx, contactId);
    await repo.updateAddress(trx, id, address);
    const moves = body.defaultShipping === true && !current.defaultShipping;
    if (moves) await repo.setDefault(trx, contactId, id);
    const ids = [id, moves ? previous : undefined];
    queued(
      await emit(trx, deps, {
        websiteId,
        topic: 'address.update',
        data: await updateData(trx, websiteId, contactId, ids, microsText(deps.clock.now(websiteId))),
      }),
    );
    queued(await announceChange(trx, deps, websiteId, before));
    return entry(trx, websiteId, contactId, id);
  });
}

export function deleteEntry(
  deps: ContactDeps,
  websiteId: string,
  ids: { contactId: string; addressBookEntryId: string },
): Promise<void> {
  const contactId = checkContactId(ids.contactId);
  const id = checkEntryId(ids.addressBookEntryId);
  return inTransaction(deps, async (trx, queued) => {
    const before = await lockedContact(trx, websiteId, contactId);
    const current = await entry(trx, websiteId, contactId, id);
    await repo.deleteEntry(trx, id);
    const now = microsText(deps.clock.now(websiteId));
    queued(
      await emit(trx, deps, {
        websiteId,
        topic: 'address.delete',
        data: { contactId, addressBookEntryIds: [id], deletedOn: now },
      }),
    );
    const promoted = current.defaultShipping ? await repo.oldestEntryId(trx, contactId) : undefined;
    if (promoted) {
      await repo.setDefault(trx, contactId, promoted);
      queued(
        await emit(trx, deps, {
          websiteId,
          topic: 'address.update',
          data: await updateData(trx, websiteId, contactId, [promoted], now),
        }),
      );
    }
    queued(await announceChange(trx, deps, websiteId, before));
  });
}
