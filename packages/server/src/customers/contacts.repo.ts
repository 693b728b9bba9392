import { sql, type Expression, type SqlBool } from 'kysely';
import { uniqueViolation, type Db } from '../db/database.ts';
import type { ProfilesTable } from '../db/schema.ts';
import { Conflict } from '../shared/errors.ts';

/** SQL of contacts: the rows of profiles (one person, one id: platform-surface 2.6.2, Q5). */

/** A timestamp as the platform writes a contact's: microseconds, `2026-08-11T10:46:52.880876Z`. */
export const micros = (column: Expression<unknown>) =>
  sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface ContactRow {
  id: string;
  first_name: string;
  last_name: string;
  locale: string | null;
  email: string;
  accepts_marketing: boolean;
  created_on_text: string;
  email_created_on_text: string;
  joined_on_text: string | null;
  left_on_text: string | null;
  /** The default shipping entry, all null when the book is empty. */
  d_id: string | null;
  d_first_name: string | null;
  d_last_name: string | null;
  d_line1: string | null;
  d_line2: string | null;
  d_city: string | null;
  d_region: string | null;
  d_postal_code: string | null;
  d_country_code: string | null;
  d_phone_number: string | null;
}

/** The website's contacts with their default shipping entries, for a page or a single read. */
export function contacts(db: Db, websiteId: string) {
  return db
    .selectFrom('profiles as p')
    .leftJoin('address_book_entries as e', (join) =>
      join.onRef('e.contact_id', '=', 'p.id').on('e.default_shipping', '=', true),
    )
    .select((eb) => [
      'p.id',
      'p.first_name',
      'p.last_name',
      'p.locale',
      'p.email',
      'p.accepts_marketing',
      micros(eb.ref('p.created_on')).as('created_on_text'),
      micros(eb.fn.coalesce('p.email_created_on', 'p.created_on')).as('email_created_on_text'),
      micros(eb.ref('p.marketing_joined_on')).as('joined_on_text'),
      micros(eb.ref('p.marketing_left_on')).as('left_on_text'),
      'e.id as d_id',
      'e.first_name as d_first_name',
      'e.last_name as d_last_name',
      'e.line1 as d_line1',
      'e.line2 as d_line2',
      'e.city as d_city',
      'e.region as d_region',
      'e.postal_code as d_postal_code',
      'e.country_code as d_country_code',
      'e.phone_number as d_phone_number',
    ])
    .where('p.website_id', '=', websiteId);
}

export async function selectContact(db: Db, websiteId: string, id: string): Promise<ContactRow | undefined> {
  return contacts(db, websiteId).where('p.id', '=', id).executeTakeFirst();
}

/** Locks the contact's row to the end of the transaction: its address book changes one at a time. */
export async function lockContact(trx: Db, websiteId: string, id: string): Promise<boolean> {
  const row = await trx
    .selectFrom('profiles')
    .select('id')
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** The contact of this e-mail whatever its case, locked, or undefined. */
export async function lockContactByEmail(
  trx: Db,
  websiteId: string,
  email: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('profiles')
    .select('id')
    .where('website_id', '=', websiteId)
    .where(sql<SqlBool>`lower(email) = lower(${email})`)
    .forUpdate()
    .executeTakeFirst();
  return row?.id;
}

const duplicate = (email: string) =>
  new Conflict(
    `primaryEmail.email: a contact with the e-mail ${email} already exists`,
    'DUPLICATE_USER_CONFLICT',
  );

/** A new contact; another contact of the e-mail whatever its case is a 409 (profiles_email_key). */
export async function insertContact(trx: Db, row: ProfilesTable): Promise<void> {
  try {
    await trx.insertInto('profiles').values(row).execute();
  } catch (error) {
    if (uniqueViolation(error)) throw duplicate(row.email);
    throw error;
  }
}

export type ContactChanges = Partial<
  Pick<
    ProfilesTable,
    | 'first_name'
    | 'last_name'
    | 'locale'
    | 'email'
    | 'email_created_on'
    | 'accepts_marketing'
    | 'marketing_joined_on'
    | 'marketing_left_on'
  >
>;

export async function updateContact(trx: Db, id: string, set: ContactChanges): Promise<void> {
  if (Object.keys(set).length === 0) return;
  try {
    await trx.updateTable('profiles').set(set).where('id', '=', id).execute();
  } catch (error) {
    if (uniqueViolation(error)) throw duplicate(set.email ?? '');
    throw error;
  }
}

/** The contact's marketing state as stored, for a change of it. */
export function selectMarketing(trx: Db, id: string) {
  return trx
    .selectFrom('profiles')
    .select(['email', 'accepts_marketing', 'marketing_joined_on'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Deletes the contact and (by cascade) its address book; its orders keep their customerId. */
export async function deleteContact(trx: Db, websiteId: string, id: string): Promise<boolean> {
  const result = await trx
    .deleteFrom('profiles')
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
