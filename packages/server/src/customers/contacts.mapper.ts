import type { AddressBookEntryT, ContactAddressT, ContactT } from './contacts.schemas.ts';
import type { EntryRow } from './address-book.repo.ts';
import type { ContactRow } from './contacts.repo.ts';

/** Rows to the wire's Contact and AddressBookEntry (platform-surface 2.6.1), fields in wire order. */

export function toEntry(row: EntryRow): AddressBookEntryT {
  return {
    id: row.id,
    defaultShipping: row.default_shipping,
    address: {
      firstName: row.first_name,
      lastName: row.last_name,
      line1: row.line1,
      line2: row.line2,
      city: row.city,
      region: row.region,
      postalCode: row.postal_code,
      countryCode: row.country_code,
      phoneNumber: row.phone_number,
    },
  };
}

function defaultEntry(row: ContactRow): AddressBookEntryT | null {
  if (row.d_id === null) return null;
  const address: ContactAddressT = {
    firstName: row.d_first_name,
    lastName: row.d_last_name,
    line1: row.d_line1,
    line2: row.d_line2,
    city: row.d_city,
    region: row.d_region,
    postalCode: row.d_postal_code,
    countryCode: row.d_country_code ?? '',
    phoneNumber: row.d_phone_number,
  };
  return { id: row.d_id, defaultShipping: true, address };
}

export function toContact(row: ContactRow): ContactT {
  return {
    id: row.id,
    createdOn: row.created_on_text,
    firstName: row.first_name,
    lastName: row.last_name,
    locale: row.locale,
    primaryEmail: {
      createdOn: row.email_created_on_text,
      email: row.email,
      acceptsMarketing: {
        acceptsMarketing: row.accepts_marketing,
        joinedOn: row.joined_on_text,
        leftOn: row.left_on_text,
      },
    },
    defaultShippingAddress: defaultEntry(row),
  };
}

/** A time as the platform writes a contact's, with microseconds (platform-surface 0.6). */
export function microsText(time: Date): string {
  return time.toISOString().replace('Z', '000Z');
}
