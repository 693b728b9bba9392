import { sql, type Kysely } from 'kysely';

/**
 * The site owner's browser sessions, and the authorization requests waiting for the owner's
 * answer on the consent page (api-details 8: a server-side record, used once).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = sql`timestamptz(3)`;
  // The cookie's token is stored only as its SHA-256 digest.
  await db.schema
    .createTable('owner_sessions')
    .addColumn('token_digest', 'bytea', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id').onDelete('cascade'))
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('owner_sessions_owner_idx').on('owner_sessions').column('owner_id').execute();

  // `owner_id` is set when a signed-in owner first opens the request; only that owner may answer.
  await db.schema
    .createTable('oauth_authorization_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('website_id', 'text')
    .addColumn('offline', 'boolean', (c) => c.notNull())
    .addColumn('code_challenge', 'text')
    .addColumn('owner_id', 'text', (c) => c.references('owners.id').onDelete('cascade'))
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('answered_at', time)
    .execute();
}
