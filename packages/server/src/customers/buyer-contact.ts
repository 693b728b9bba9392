import type { Clock } from '../shared/clock.ts';
import { upsertBuyerProfile, type Buyer } from './profiles.service.ts';
import type { Db } from '../db/database.ts';
import type { AddressJson } from '../shared/order-model.ts';
import type { Ids } from '../shared/ids.ts';
import type { Jobs } from '../jobs/queue.ts';
import { emit, subscribed } from '../webhooks/outbox.ts';
import { findEqualEntry, type AddressColumns } from './address-book.repo.ts';
import { addEntry, announceAdded } from './address-book.service.ts';
import { lockContactByEmail } from './contacts.repo.ts';
import { announceChange, readContact } from './contacts.service.ts';
import { isCountryCode } from './country-codes.ts';

/**
 * The buyer of an order (a storefront checkout, an import) as a contact: one person, one id
 * (platform-surface 2.6.2, open question 5). The profile upsert finds the contact of the e-mail
 * whatever its case, so a contact made over the API keeps its id when it buys, and the order's
 * customerId is that id. A buyer's first order makes the contact (`contact.create`); a later one
 * that fills in its names or gives it its first address sends `contact.update`. The order's
 * shipping address joins the book unless an equal entry is there (the first becomes default).
 */

/** The order Address as a book entry; none without a country of the platform's list. */
function entryOf(address: AddressJson | null): AddressColumns | undefined {
  if (!address?.countryCode || !isCountryCode(address.countryCode)) return undefined;
  return {
    first_name: address.firstName,
    last_name: address.lastName,
    line1: address.address1,
    line2: address.address2,
    city: address.city,
    region: address.state,
    postal_code: address.postalCode,
    country_code: address.countryCode,
    phone_number: address.phone,
  };
}

/** Call in the order's transaction; returns the contact id and how many notifications were queued. */
export async function recordBuyerContact(
  trx: Db,
  deps: { ids: Ids; clock: Clock; jobs: Jobs },
  websiteId: string,
  buyer: Buyer,
  shippingAddress: AddressJson | null,
): Promise<{ id: string; notified: number }> {
  // The contact as it was, only for a `contact.update` to be sent if it changes: read under its
  // row lock, which the upsert takes anyway when nobody is told.
  const watched = await subscribed(trx, websiteId, 'contact.update');
  const known = watched ? await lockContactByEmail(trx, websiteId, buyer.email) : undefined;
  let before = known !== undefined ? await readContact(trx, websiteId, known) : undefined;
  const { id, inserted } = await upsertBuyerProfile(trx, deps, websiteId, buyer);
  // Made by a concurrent first order between the look-up and the upsert: compare from here.
  if (!inserted && before === undefined && watched) before = await readContact(trx, websiteId, id);

  const address = entryOf(shippingAddress);
  const added =
    address && !(await findEqualEntry(trx, id, address))
      ? await addEntry(trx, deps, websiteId, id, address, false)
      : undefined;

  let notified = 0;
  if (inserted && (await subscribed(trx, websiteId, 'contact.create'))) {
    const contact = await readContact(trx, websiteId, id);
    notified += await emit(trx, deps, { websiteId, topic: 'contact.create', data: contact });
  }
  if (added) notified += await announceAdded(trx, deps, websiteId, id, added);
  if (before) notified += await announceChange(trx, deps, websiteId, before);
  return { id, notified };
}
