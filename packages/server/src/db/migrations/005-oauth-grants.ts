import { sql, type Kysely } from 'kysely';

/**
 * What an owner's Allow creates (api-details 8). A grant is one authorization of one client for
 * one website: its code, and the family of tokens redeemed from that code, which is revoked as a
 * whole (code replay, refresh replay, the owner's revocation). Codes and tokens are stored only
 * as SHA-256 digests (security AC-1, RT-13, SC-1).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = sql`timestamptz(3)`;
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('offline', 'boolean', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text')
    .addColumn('code_digest', 'bytea', (c) => c.notNull().unique())
    .addColumn('code_expires_at', time, (c) => c.notNull())
    .addColumn('code_used_at', time)
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('last_used_at', time)
    .addColumn('revoked_at', time)
    .addColumn('revoked_reason', 'text')
    .execute();
  // Caches of access tokens (oauth/access-tokens.ts) drop everything on this notice
  // (db/change-feed.ts), so a revoked grant's tokens are refused on every instance at once.
  await sql`
    CREATE FUNCTION emporium_grant_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('emporium_changes', 'oauth_grant:' || OLD.id);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER oauth_grants_revoked AFTER UPDATE OF revoked_at OR DELETE ON oauth_grants
    FOR EACH ROW EXECUTE FUNCTION emporium_grant_revoked()`.execute(db);
  await db.schema
    .createIndex('oauth_grants_website_client_idx')
    .on('oauth_grants')
    .columns(['website_id', 'client_id'])
    .execute();

  // A refresh token and the tokens rotated from it: `parent_id` is the token it was refreshed
  // from (null for the one issued with the code, or once that token expired and was swept). Retired 'confirmed' when a child pair was
  // confirmed (presenting it again is a replay), 'sibling' when another child of its parent was.
  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('parent_id', 'text', (c) => c.references('oauth_refresh_tokens.id').onDelete('set null'))
    .addColumn('token_digest', 'bytea', (c) => c.notNull().unique())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('confirmed_at', time)
    .addColumn('retired_at', time)
    .addColumn('retired_reason', 'text')
    .execute();
  await db.schema
    .createIndex('oauth_refresh_tokens_parent_idx')
    .on('oauth_refresh_tokens')
    .column('parent_id')
    .execute();
  await db.schema
    .createIndex('oauth_refresh_tokens_grant_idx')
    .on('oauth_refresh_tokens')
    .column('grant_id')
    .execute();

  // `refresh_id`: the refresh token issued in the same pair; `pending` while that pair awaits
  // confirmation, which the first API call with this token gives.
  await db.schema
    .createTable('oauth_access_tokens')
    .addColumn('token_digest', 'bytea', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('refresh_id', 'text', (c) => c.references('oauth_refresh_tokens.id').onDelete('cascade'))
    .addColumn('pending', 'boolean', (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('revoked_at', time)
    .execute();
  await db.schema
    .createIndex('oauth_access_tokens_grant_idx')
    .on('oauth_access_tokens')
    .column('grant_id')
    .execute();

  // Security events (security AB-6), shown to the owner of the website. Never a secret in `detail`.
  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', time, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.references('owners.id').onDelete('cascade'))
    .addColumn('website_id', 'text', (c) => c.references('websites.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.references('oauth_clients.id').onDelete('set null'))
    .addColumn('ip', 'text')
    .addColumn('detail', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema
    .createIndex('audit_events_website_idx')
    .on('audit_events')
    .columns(['website_id', 'at'])
    .execute();
  await db.schema
    .createIndex('audit_events_owner_idx')
    .on('audit_events')
    .columns(['owner_id', 'at'])
    .execute();
}
