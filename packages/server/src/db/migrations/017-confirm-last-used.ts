import { sql, type Kysely } from 'kysely';

/**
 * The first use of a refreshed pair's access token records the grant's last use in the same
 * statement that confirms the pair: the grant's row is locked there already, and the separate
 * update that followed was a second transaction, with its own commit, on every first call.
 * Otherwise as migration 014.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION oauth_confirm_by_use(presented bytea, moment timestamptz)
    RETURNS boolean LANGUAGE plpgsql AS $$
    DECLARE
      g oauth_grants;
      t record;
    BEGIN
      SELECT * INTO g FROM oauth_grants
        WHERE id = (SELECT grant_id FROM oauth_access_tokens WHERE token_digest = presented) FOR UPDATE;
      IF NOT FOUND OR g.revoked_at IS NOT NULL THEN RETURN false; END IF;
      SELECT a.pending, a.revoked_at, r.id, r.parent_id INTO t
        FROM oauth_access_tokens a JOIN oauth_refresh_tokens r ON r.id = a.refresh_id
        WHERE a.token_digest = presented;
      IF NOT FOUND OR t.revoked_at IS NOT NULL THEN RETURN false; END IF;
      IF t.pending THEN PERFORM oauth_confirm_pair(t.id, t.parent_id, moment); END IF;
      UPDATE oauth_grants SET last_used_at = moment WHERE id = g.id;
      RETURN true;
    END $$`.execute(db);
}
