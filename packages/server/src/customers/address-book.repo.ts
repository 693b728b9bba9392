import { sql, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { AddressBookEntriesTable } from '../db/schema.ts';
import { micros } from './contacts.repo.ts';

/** SQL of address books (platform-surface 2.6.2); callers hold the contact's row lock to write. */

export type EntryRow = Omit<AddressBookEntriesTable, 'website_id' | 'created_on'> & {
  created_on_text: string;
};

/** The address's columns, as stored. */
export type AddressColumns = Pick<
  AddressBookEntriesTable,
  | 'first_name'
  | 'last_name'
  | 'line1'
  | 'line2'
  | 'city'
  | 'region'
  | 'postal_code'
  | 'country_code'
  | 'phone_number'
>;

function entries(db: Db, websiteId: string, contactId: string) {
  return db
    .selectFrom('address_book_entries as a')
    .select((eb) => [
      'a.id',
      'a.contact_id',
      'a.default_shipping',
      'a.first_name',
      'a.last_name',
      'a.line1',
      'a.line2',
      'a.city',
      'a.region',
      'a.postal_code',
      'a.country_code',
      'a.phone_number',
      micros(eb.ref('a.created_on')).as('created_on_text'),
    ])
    .where('a.website_id', '=', websiteId)
    .where('a.contact_id', '=', contactId);
}

/**
 * A page of the book: the default first, then oldest first (address_book_page_idx), so the
 * default is always on the first page (platform-surface 2.6.2).
 */
export function selectEntryPage(
  db: Db,
  websiteId: string,
  contactId: string,
  after: { rank: number; createdOn: string; id: string } | undefined,
  limit: number,
): Promise<EntryRow[]> {
  let page = entries(db, websiteId, contactId)
    .orderBy(sql`(NOT a.default_shipping)`)
    .orderBy('a.created_on')
    .orderBy('a.id')
    .limit(limit);
  if (after) {
    page = page.where(
      sql<SqlBool>`((NOT a.default_shipping)::int, a.created_on, a.id) >
        (${after.rank}, ${after.createdOn}::timestamptz, ${after.id})`,
    );
  }
  return page.execute();
}

export function selectEntry(db: Db, websiteId: string, contactId: string, id: string) {
  return entries(db, websiteId, contactId).where('a.id', '=', id).executeTakeFirst();
}

export function selectEntries(db: Db, websiteId: string, contactId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([] as EntryRow[]);
  return entries(db, websiteId, contactId).where('a.id', 'in', ids).orderBy('a.created_on').execute();
}

export async function selectDefaultId(trx: Db, contactId: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('address_book_entries')
    .select('id')
    .where('contact_id', '=', contactId)
    .where('default_shipping', '=', true)
    .executeTakeFirst();
  return row?.id;
}

export async function insertEntry(trx: Db, row: AddressBookEntriesTable): Promise<void> {
  await trx.insertInto('address_book_entries').values(row).execute();
}

export async function updateAddress(trx: Db, id: string, address: AddressColumns): Promise<void> {
  await trx.updateTable('address_book_entries').set(address).where('id', '=', id).execute();
}

/** Makes this entry the contact's only default (address_book_default_key allows one). */
export async function setDefault(trx: Db, contactId: string, id: string): Promise<void> {
  await trx
    .updateTable('address_book_entries')
    .set({ default_shipping: false })
    .where('contact_id', '=', contactId)
    .where('default_shipping', '=', true)
    .where('id', '<>', id)
    .execute();
  await trx
    .updateTable('address_book_entries')
    .set({ default_shipping: true })
    .where('id', '=', id)
    .execute();
}

export async function deleteEntry(trx: Db, id: string): Promise<void> {
  await trx.deleteFrom('address_book_entries').where('id', '=', id).execute();
}

/** The oldest entry left, to become the default when the default goes. */
export async function oldestEntryId(trx: Db, contactId: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('address_book_entries')
    .select('id')
    .where('contact_id', '=', contactId)
    .orderBy('created_on')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** An entry of the contact with exactly this address, if any. */
export async function findEqualEntry(
  trx: Db,
  contactId: string,
  address: AddressColumns,
): Promise<string | undefined> {
  let query = trx.selectFrom('address_book_entries').select('id').where('contact_id', '=', contactId);
  for (const [column, value] of Object.entries(address) as [keyof AddressColumns, string | null][]) {
    query = query.where(sql<SqlBool>`${sql.ref(column)} IS NOT DISTINCT FROM ${value}`);
  }
  const row = await query.limit(1).executeTakeFirst();
  return row?.id;
}
