import { sql, type Kysely } from 'kysely';

/**
 * Injected faults (faults/): rules a website's tests set to make its API answer with an error,
 * late, slowly or not at all. Read whole by each instance (a handful a site), so the only index
 * is the website's, for its list and clear.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('fault_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('method', 'text')
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('effect', 'text', (c) => c.notNull())
    .addColumn('status', 'smallint')
    .addColumn('retry_after_s', 'integer')
    .addColumn('min_ms', 'integer')
    .addColumn('max_ms', 'integer')
    .addColumn('probability', 'double precision', (c) => c.notNull().defaultTo(1))
    .addColumn('seed', 'integer', (c) => c.notNull())
    .addColumn('remaining', 'integer')
    .addColumn('count', 'integer')
    .addColumn('until', sql`timestamptz(3)`)
    .addColumn('client_id', 'text')
    .addColumn('api_key_id', 'text')
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX fault_rules_website_idx ON fault_rules (website_id, created_at)`.execute(db);
}
