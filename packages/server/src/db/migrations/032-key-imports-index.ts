import { sql, type Kysely } from 'kysely';

/**
 * The orders a website's API keys imported, in time order (orders.repo.ts, countKeyImports): the
 * hourly limit counts them while the website's order number is held, and without this index read
 * every key the website kept for 48 hours, its apps' too. The predicate is written out in the
 * count's text, so a prepared statement's plan can use the index too. Only an addition.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX order_import_keys_by_api_key_idx ON order_import_keys (website_id, created_at)
    WHERE caller LIKE 'key:%'`.execute(db);
}
