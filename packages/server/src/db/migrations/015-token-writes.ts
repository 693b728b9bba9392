import { sql, type Kysely } from 'kysely';

/**
 * Cheaper token writes: a refresh inserts two tokens, and each foreign key on them was a lookup
 * and a row lock run by PostgreSQL for every insert (four a refresh, about 15% of the database's
 * work of a refresh: bench/README.md, "OAuth benchmark"). Tokens are inserted only by the
 * functions of migration 014, each holding the grant's row lock and inserting the refresh token
 * and its access token in the same transaction, so what the keys checked holds by construction.
 * What they did on delete is done by statement triggers, once per delete statement:
 *
 * - a deleted grant takes its tokens with it (it was ON DELETE CASCADE);
 * - a deleted refresh token takes the access token issued with it (cascade), and its children
 *   forget it as their parent (it was ON DELETE SET NULL).
 *
 * A grant deleted while a refresh of it runs waits for that refresh's commit (the refresh holds
 * the grant's row lock), then its trigger deletes the tokens the refresh inserted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE oauth_refresh_tokens
      DROP CONSTRAINT oauth_refresh_tokens_grant_id_fkey,
      DROP CONSTRAINT oauth_refresh_tokens_parent_id_fkey`.execute(db);
  await sql`
    ALTER TABLE oauth_access_tokens
      DROP CONSTRAINT oauth_access_tokens_grant_id_fkey,
      DROP CONSTRAINT oauth_access_tokens_refresh_id_fkey`.execute(db);

  await sql`
    CREATE FUNCTION emporium_grants_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM oauth_access_tokens WHERE grant_id IN (SELECT id FROM gone);
      DELETE FROM oauth_refresh_tokens WHERE grant_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER oauth_grants_deleted AFTER DELETE ON oauth_grants
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION emporium_grants_deleted()`.execute(db);

  await sql`
    CREATE FUNCTION emporium_refresh_tokens_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM oauth_access_tokens WHERE refresh_id IN (SELECT id FROM gone);
      UPDATE oauth_refresh_tokens SET parent_id = NULL WHERE parent_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER oauth_refresh_tokens_deleted AFTER DELETE ON oauth_refresh_tokens
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION emporium_refresh_tokens_deleted()`.execute(
    db,
  );
}
