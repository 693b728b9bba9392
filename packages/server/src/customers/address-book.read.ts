import type { Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { pagination, type CursorCodec, type Pagination } from '../pagination/cursor.ts';
import * as repo from './address-book.repo.ts';
import { toEntry } from './contacts.mapper.ts';
import { selectContact } from './contacts.repo.ts';
import { DEFAULT_PAGE_SIZE, type AddressBookEntryT } from './contacts.schemas.ts';
import { checkContactId } from './contacts.service.ts';
import { listPageSize } from './page-size.ts';
import { OBJECT_ID } from '../shared/ids.ts';

/** Reading address books (platform-surface 2.6.2): an entry, and pages with the default first. */

export function checkEntryId(id: string): string {
  const lower = id.toLowerCase();
  if (!OBJECT_ID.test(lower)) throw new NotFound(`address book entry not found: ${id}`);
  return lower;
}

export async function entry(
  db: Db,
  websiteId: string,
  contactId: string,
  id: string,
): Promise<AddressBookEntryT> {
  const row = await repo.selectEntry(db, websiteId, contactId, id);
  if (!row) throw new NotFound(`address book entry not found: ${id}`);
  return toEntry(row);
}

export function getEntry(
  deps: { db: Db },
  websiteId: string,
  ids: { contactId: string; addressBookEntryId: string },
): Promise<AddressBookEntryT> {
  return entry(deps.db, websiteId, checkContactId(ids.contactId), checkEntryId(ids.addressBookEntryId));
}

interface BookCursor {
  w: string;
  c: string;
  r: number;
  t: string;
  i: string;
  n: number;
}

/** A page of the book, the default first; defaultShippingAddressId only on the page that holds it. */
export async function listEntries(
  deps: { db: Db; cursors: CursorCodec; baseUrl: string },
  websiteId: string,
  contactIdText: string,
  query: { cursor?: string; pageSize?: string },
): Promise<{
  addressBook: { addressBookEntries: AddressBookEntryT[]; defaultShippingAddressId: string | null };
  pagination: Pagination;
}> {
  const contactId = checkContactId(contactIdText);
  const requested = listPageSize(query.pageSize);
  let c: BookCursor | undefined;
  if (query.cursor) {
    c = deps.cursors.decode<BookCursor>('address-book', query.cursor);
    if (c.w !== websiteId || c.c !== contactId)
      throw new ValidationError('cursor: not a cursor of this address book');
  }
  if (!(await selectContact(deps.db, websiteId, contactId)))
    throw new NotFound(`contact not found: ${contactIdText}`);
  const size = requested ?? c?.n ?? DEFAULT_PAGE_SIZE;
  const after = c && { rank: c.r, createdOn: c.t, id: c.i };
  const rows = await repo.selectEntryPage(deps.db, websiteId, contactId, after, size + 1);
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  const next =
    rows.length > size && last
      ? deps.cursors.encode('address-book', {
          w: websiteId,
          c: contactId,
          r: last.default_shipping ? 0 : 1,
          t: last.created_on_text,
          i: last.id,
          n: size,
        } satisfies BookCursor)
      : null;
  const entries = page.map(toEntry);
  return {
    addressBook: {
      addressBookEntries: entries,
      defaultShippingAddressId: entries.find((e) => e.defaultShipping)?.id ?? null,
    },
    pagination: pagination(next, `${deps.baseUrl}/v1/contacts/${contactId}/address-book`),
  };
}
