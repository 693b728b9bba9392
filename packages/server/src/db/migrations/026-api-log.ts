import { sql, type Kysely } from 'kysely';

/**
 * The request log of each website (api-log/): one row an API or token request, written in
 * batches. Its index reads a website's newest first; the filters (credential, status, path,
 * contextId) are checked along that scan, which the retention bounds to 100,000 rows a site, and
 * a credential's own index serves the most common filter (one app's requests).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_requests')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'smallint', (c) => c.notNull())
    .addColumn('latency_ms', 'real', (c) => c.notNull())
    .addColumn('context_id', 'text', (c) => c.notNull())
    .addColumn('credential_kind', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('fault', 'text')
    .addColumn('request_body', 'text')
    .addColumn('request_body_cut', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('response_body', 'text')
    .addColumn('response_body_cut', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  // Bodies are kept as they are, not compressed: compressing 16 KB a row cost the service more
  // CPU under load than the disk it saves (bench/README.md, "The request log").
  await sql`ALTER TABLE api_requests ALTER COLUMN request_body SET STORAGE EXTERNAL,
    ALTER COLUMN response_body SET STORAGE EXTERNAL`.execute(db);
  await sql`CREATE INDEX api_requests_newest_idx ON api_requests (website_id, at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX api_requests_credential_idx
    ON api_requests (website_id, credential_id, at DESC, id DESC)`.execute(db);
}
