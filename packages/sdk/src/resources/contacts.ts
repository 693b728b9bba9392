import { segment, type Caller } from '../client.js';
import { PagedList } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type {
  AddressBookEntry,
  AddressBookEntryInput,
  AddressBookEntryReplace,
  AddressBookList,
  AddressBookListParams,
  Contact,
  ContactCreate,
  ContactList,
  ContactListParams,
  ContactQuery,
  ContactUpdate,
} from '../types.js';

const PATH = '/v1/contacts';
const one = (id: string) => `${PATH}/${segment(id)}`;
const bookOf = (contactId: string) => `${one(contactId)}/address-book`;

/**
 * `/v1/contacts/{contactId}/address-book` (scopes `website.contacts.read`, and `website.contacts`
 * to write). A book with entries has one default shipping address: the first entry is it, and
 * `defaultShipping: true` moves it.
 */
export class AddressBook {
  constructor(private readonly client: Caller) {}

  /**
   * A page of `pageSize` entries (1 to 1000, default 50), the default first; await it for the
   * first page (`{ addressBook: { addressBookEntries, defaultShippingAddressId }, pagination }`), or
   * `for await` over every entry.
   */
  list(
    contactId: string,
    params: Omit<AddressBookListParams, 'cursor'> = {},
    options: CallOptions = {},
  ): PagedList<AddressBookList, AddressBookEntry> {
    return new PagedList(
      (cursor) =>
        this.client.call<AddressBookList>({
          method: 'GET',
          path: bookOf(contactId),
          query: cursor ? { cursor } : params,
          ...options,
        }),
      (page) => page.addressBook.addressBookEntries,
    );
  }

  async get(contactId: string, entryId: string, options: CallOptions = {}): Promise<AddressBookEntry> {
    const body = await this.client.call<{ addressBookEntry: AddressBookEntry }>({
      method: 'GET',
      path: `${bookOf(contactId)}/${segment(entryId)}`,
      ...options,
    });
    return body.addressBookEntry;
  }

  /** Adds an entry. Not retried after a network error or a 5xx: a second attempt could add it twice. */
  async create(
    contactId: string,
    body: AddressBookEntryInput,
    options: CallOptions = {},
  ): Promise<AddressBookEntry> {
    const answer = await this.client.call<{ addressBookEntry: AddressBookEntry }>({
      method: 'POST',
      path: bookOf(contactId),
      json: body,
      ...options,
    });
    return answer.addressBookEntry;
  }

  /** Replaces the whole address (PUT, retried safely). */
  async replace(
    contactId: string,
    entryId: string,
    body: AddressBookEntryReplace,
    options: CallOptions = {},
  ): Promise<AddressBookEntry> {
    const answer = await this.client.call<{ addressBookEntry: AddressBookEntry }>({
      method: 'PUT',
      path: `${bookOf(contactId)}/${segment(entryId)}`,
      json: body,
      ...options,
    });
    return answer.addressBookEntry;
  }

  async delete(contactId: string, entryId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({
      method: 'DELETE',
      path: `${bookOf(contactId)}/${segment(entryId)}`,
      ...options,
    });
  }
}

/**
 * `/v1/contacts` (scopes `website.contacts.read`, or an OAuth token's `website.profiles.read`, to
 * read; `website.contacts` to write). A contact is the person of `/1.0/profiles` with the same id,
 * and an order's `customerId`.
 */
export class Contacts {
  readonly addressBook: AddressBook;

  constructor(private readonly client: Caller) {
    this.addressBook = new AddressBook(client);
  }

  /** A page of `pageSize` contacts (1 to 1000, default 50), oldest first; `for await` over every one. */
  list(
    params: Omit<ContactListParams, 'cursor'> = {},
    options: CallOptions = {},
  ): PagedList<ContactList, Contact> {
    return new PagedList(
      (cursor) =>
        this.client.call<ContactList>({
          method: 'GET',
          path: PATH,
          query: cursor ? { cursor } : params,
          ...options,
        }),
      (page) => page.contacts,
    );
  }

  /**
   * `POST /v1/contacts/query`: filters, `searchString` and a sort; pages like `list`, each next page
   * asked with the cursor alone (it carries the query). A read: retried like a GET.
   */
  query(body: Omit<ContactQuery, 'cursor'> = {}, options: CallOptions = {}): PagedList<ContactList, Contact> {
    return new PagedList(
      (cursor) =>
        this.client.call<ContactList>({
          method: 'POST',
          path: `${PATH}/query`,
          json: cursor ? { cursor } : body,
          idempotent: true,
          ...options,
        }),
      (page) => page.contacts,
    );
  }

  async get(id: string, options: CallOptions = {}): Promise<Contact> {
    return (await this.client.call<{ contact: Contact }>({ method: 'GET', path: one(id), ...options }))
      .contact;
  }

  /** A contact of no orders; a ConflictError when a contact has the e-mail (in any case). Not retried. */
  async create(body: ContactCreate, options: CallOptions = {}): Promise<Contact> {
    const answer = await this.client.call<{ contact: Contact }>({
      method: 'POST',
      path: PATH,
      json: body,
      ...options,
    });
    return answer.contact;
  }

  /** A JSON merge patch: a field left out is kept, `locale: null` clears it. Retried: the same patch twice is one. */
  async update(id: string, body: ContactUpdate, options: CallOptions = {}): Promise<Contact> {
    const answer = await this.client.call<{ contact: Contact }>({
      method: 'PATCH',
      path: one(id),
      json: body,
      headers: { 'content-type': 'application/merge-patch+json' },
      idempotent: true,
      ...options,
    });
    return answer.contact;
  }

  /** Deletes the contact and its address book; its orders keep their customerId. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: one(id), ...options });
  }
}
