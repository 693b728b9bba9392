import { sql, type Kysely } from 'kysely';

/**
 * The product types of Products v2 (platform-surface 2.5.1): SERVICE and GIFT_CARD beside
 * PHYSICAL and DIGITAL, and the GTIN and MPN a PHYSICAL variant may carry. The list index also
 * holds the type, so that a 1.x list, which leaves out the types 1.x does not know, is still read
 * from the index alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE products DROP CONSTRAINT products_type_check`.execute(db);
  await sql`ALTER TABLE products ADD CONSTRAINT products_type_check
              CHECK (type IN ('PHYSICAL', 'SERVICE', 'GIFT_CARD', 'DIGITAL'))`.execute(db);
  await db.schema.alterTable('variants').addColumn('gtin', 'text').addColumn('mpn', 'text').execute();
  await sql`CREATE INDEX products_typed_page_idx ON products (website_id, modified_on, id) INCLUDE (type)`.execute(
    db,
  );
  await sql`DROP INDEX products_page_idx`.execute(db);
}
