import { sql, type Kysely } from 'kysely';

/**
 * Each website's change clock (db/change-clock.ts): the last `modifiedOn` it handed out, so that
 * every later one is greater whatever the clocks of the instances say. Started from the newest
 * product of each website.
 *
 * A change now writes a product's row and then, last, its modifiedOn: the cached documents'
 * notice (migration 002) is sent for the second write only, the one with the new version.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('change_clocks')
    .addColumn('website_id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('stamp', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await sql`
    INSERT INTO change_clocks (website_id, stamp)
    SELECT website_id, max(modified_on) FROM products GROUP BY website_id`.execute(db);
  await sql`DROP TRIGGER products_changed ON products`.execute(db);
  await sql`
    CREATE TRIGGER products_changed AFTER UPDATE ON products
    FOR EACH ROW WHEN (OLD.modified_on IS DISTINCT FROM NEW.modified_on)
    EXECUTE FUNCTION emporium_product_changed()`.execute(db);
  await sql`
    CREATE TRIGGER products_deleted AFTER DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION emporium_product_changed()`.execute(db);
}
