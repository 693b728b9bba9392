import { sql, type Kysely } from 'kysely';

/**
 * Registered OAuth clients (apps). Any owner may register one; the secret is stored only as its
 * SHA-256 digest (security SC-1). Redirect URIs are kept exactly as registered: the authorize
 * endpoint compares them byte for byte (AZ-1).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', sql`text[]`, (c) => c.notNull())
    .addColumn('initiate_url', 'text')
    .addColumn('terms_url', 'text')
    .addColumn('privacy_url', 'text')
    .addColumn('secret_digest', 'bytea', (c) => c.notNull())
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('secret_rotated_at', sql`timestamptz(3)`)
    .execute();
  await db.schema.createIndex('oauth_clients_owner_idx').on('oauth_clients').column('owner_id').execute();
}
