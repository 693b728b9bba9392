/**
 * Webhook topics and the scope each needs (api-details 7, platform-surface 0.7). The product
 * topics go beyond the platform the API follows, which has no catalog events; their data is
 * `{ productId }`. The contact and address topics (sent by customers/) need the contacts write
 * scope, as on the platform.
 */
export const TOPIC_SCOPES = {
  'extension.uninstall': null,
  'order.create': 'website.orders.read',
  'order.update': 'website.orders.read',
  'contact.create': 'website.contacts',
  'contact.update': 'website.contacts',
  'contact.delete': 'website.contacts',
  'address.create': 'website.contacts',
  'address.update': 'website.contacts',
  'address.delete': 'website.contacts',
  'product.create': 'website.products.read',
  'product.update': 'website.products.read',
  'product.delete': 'website.products.read',
} as const;

export type Topic = keyof typeof TOPIC_SCOPES;

export const TOPICS = Object.keys(TOPIC_SCOPES) as Topic[];

export function isTopic(value: string): value is Topic {
  return Object.hasOwn(TOPIC_SCOPES, value);
}

/** What changed in an `order.update` (platform-surface 3). */
export type OrderUpdate = 'FULFILLED' | 'REFUNDED' | 'CANCELED' | 'MARKED_PENDING' | 'EMAIL_UPDATED';

/** An address of the address book (platform-surface 2.6.1): `line1`, `region`, not an order's `address1`, `state`. */
export interface ContactAddress {
  firstName: string | null;
  lastName: string | null;
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postalCode: string | null;
  countryCode: string;
  phoneNumber: string | null;
}

export interface AddressBookEntry {
  id: string;
  defaultShipping: boolean;
  address: ContactAddress;
}

/** A contact (platform-surface 2.6.1); its timestamps have microseconds. */
export interface Contact {
  id: string;
  createdOn: string;
  firstName: string;
  lastName: string;
  locale: string | null;
  primaryEmail: {
    createdOn: string;
    email: string;
    acceptsMarketing: { acceptsMarketing: boolean; joinedOn: string | null; leftOn: string | null };
  };
  defaultShippingAddress: AddressBookEntry | null;
}

/** What an event's notification carries in `data` (platform-surface 3; optional = not required there). */
export interface TopicData {
  'extension.uninstall': { clientId: string };
  'order.create': { orderId: string };
  'order.update': { orderId: string; update: OrderUpdate };
  'contact.create': Contact;
  'contact.update': Contact;
  'contact.delete': { id: string; deletedOn: string };
  'address.create': { contactId: string; addressBookEntries: AddressBookEntry[]; createdOn?: string };
  /** The entries as they are after the update. */
  'address.update': {
    contactId: string;
    addressBookEntries: AddressBookEntry[];
    createdOn?: string;
    updatedOn?: string;
  };
  'address.delete': { contactId: string; addressBookEntryIds: string[]; deletedOn?: string };
  'product.create': { productId: string };
  'product.update': { productId: string };
  'product.delete': { productId: string };
}
