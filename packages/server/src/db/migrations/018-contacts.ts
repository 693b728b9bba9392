import { sql, type Kysely } from 'kysely';

/**
 * Contacts (platform-surface 2.6): a contact is the customer profile of 1.0, one person with one
 * id (2.6.2, open question 5), so the profile's row gets the contact's own fields, and its
 * address book a table.
 *
 * A contact deleted over the API goes with its address book, while its orders keep their
 * `customerId`: the orders' foreign key to profiles has to go.
 *
 * Contacts query (2.6.3): every sort field has an index of (website_id, column, id) for keyset
 * pages; nullable times sort as '-infinity', so the keyset never meets a NULL. `searchString`
 * goes through a trigram index over names and e-mail, as products' search does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const micros = sql`timestamptz(6)`;
  await db.schema
    .alterTable('profiles')
    .addColumn('locale', 'text')
    // Null on rows written before: created_on stands in (contacts.repo.ts).
    .addColumn('email_created_on', micros)
    .addColumn('marketing_joined_on', micros)
    .addColumn('marketing_left_on', micros)
    .execute();
  await sql`UPDATE profiles SET marketing_joined_on = created_on WHERE accepts_marketing`.execute(db);
  await sql`ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_customer_id_fkey`.execute(db);

  await sql`CREATE INDEX profiles_first_name_idx ON profiles (website_id, first_name, id)`.execute(db);
  await sql`CREATE INDEX profiles_email_id_idx ON profiles (website_id, lower(email), id)`.execute(db);
  await sql`CREATE INDEX profiles_joined_idx ON profiles
            (website_id, coalesce(marketing_joined_on, '-infinity'::timestamptz), id)`.execute(db);
  await sql`CREATE INDEX profiles_order_count_idx ON profiles (website_id, order_count, id)`.execute(db);
  await sql`CREATE INDEX profiles_last_order_idx ON profiles
            (website_id, coalesce(last_order_on, '-infinity'::timestamptz), id)`.execute(db);
  await sql`CREATE INDEX profiles_order_amount_idx ON profiles (website_id, total_order_minor, id)`.execute(
    db,
  );
  // The firstOrderOn filter, the one filter that is no sort too.
  await sql`CREATE INDEX profiles_first_order_idx ON profiles (website_id, first_order_on)`.execute(db);
  await sql`CREATE INDEX profiles_search_idx ON profiles
            USING gin ((lower(first_name || ' ' || last_name || ' ' || email)) gin_trgm_ops)`.execute(db);

  await db.schema
    .createTable('address_book_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
    .addColumn('default_shipping', 'boolean', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('line1', 'text')
    .addColumn('line2', 'text')
    .addColumn('city', 'text')
    .addColumn('region', 'text')
    .addColumn('postal_code', 'text')
    .addColumn('country_code', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text')
    .addColumn('created_on', micros, (c) => c.notNull())
    .execute();
  // At most one default shipping address a contact (platform-surface 2.6.2).
  await sql`CREATE UNIQUE INDEX address_book_default_key ON address_book_entries (contact_id)
            WHERE default_shipping`.execute(db);
  // The book's pages: the default first, then oldest first.
  await sql`CREATE INDEX address_book_page_idx ON address_book_entries
            (contact_id, (NOT default_shipping), created_on, id)`.execute(db);
}
