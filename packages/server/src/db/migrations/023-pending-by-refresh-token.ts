import { sql, type Kysely } from 'kysely';

/**
 * A refreshed pair awaits confirmation while its refresh token's `confirmed_at` is null; the
 * access token's `pending` said the same thing a second time, and confirming a pair cleared it in
 * an update of its own: one statement, an index lookup and a WAL record on every refresh and every
 * first call with a refreshed token (bench/README.md, "OAuth benchmark"). The functions now read
 * the refresh token instead, and `pending` is no longer read or updated (its rows keep the value
 * they were inserted with; the column goes in a later release). oauth_authenticate also finds
 * its rows one key at a time (below). Otherwise as migrations 014, 017 and 021: same arguments,
 * same answers, so instances of the previous release work unchanged.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION oauth_confirm_pair(refresh text, parent text, moment timestamptz)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE oauth_refresh_tokens SET confirmed_at = moment WHERE id = refresh;
      IF parent IS NULL THEN RETURN; END IF;
      -- The parent and the siblings in one statement; the siblings' access tokens with them.
      WITH retired AS (
        UPDATE oauth_refresh_tokens
          SET retired_at = moment, retired_reason = CASE WHEN id = parent THEN 'confirmed' ELSE 'sibling' END
          WHERE (id = parent OR (parent_id = parent AND id <> refresh)) AND retired_at IS NULL
          RETURNING id
      )
      UPDATE oauth_access_tokens SET revoked_at = moment
        WHERE refresh_id IN (SELECT id FROM retired WHERE id <> parent);
    END $$`.execute(db);

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
      SELECT a.revoked_at, r.id, r.parent_id, r.confirmed_at INTO t
        FROM oauth_access_tokens a JOIN oauth_refresh_tokens r ON r.id = a.refresh_id
        WHERE a.token_digest = presented;
      IF NOT FOUND OR t.revoked_at IS NOT NULL THEN RETURN false; END IF;
      IF t.confirmed_at IS NULL THEN PERFORM oauth_confirm_pair(t.id, t.parent_id, moment); END IF;
      UPDATE oauth_grants SET last_used_at = moment WHERE id = g.id;
      RETURN true;
    END $$`.execute(db);

  // The token, then its grant, then its refresh token, each found by its key: as one join, the
  // plan kept for the session was made while the tables were small, and went on reading every
  // grant once they were not. An access token without a refresh token (an online grant's) is
  // never pending.
  await sql`
    CREATE OR REPLACE FUNCTION oauth_authenticate(presented bytea, moment timestamptz)
    RETURNS TABLE (grant_id text, expires_at timestamptz, client_id text, website_id text,
                   scopes text[], last_used_at timestamptz)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      t record;
      g record;
    BEGIN
      SELECT a.grant_id, a.refresh_id, a.expires_at INTO t FROM oauth_access_tokens a
        WHERE a.token_digest = presented AND a.revoked_at IS NULL;
      IF NOT FOUND OR t.expires_at <= moment THEN RETURN; END IF;
      SELECT o.client_id, o.website_id, o.scopes, o.last_used_at INTO g FROM oauth_grants o
        WHERE o.id = t.grant_id AND o.revoked_at IS NULL;
      IF NOT FOUND THEN RETURN; END IF;
      IF t.refresh_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM oauth_refresh_tokens p WHERE p.id = t.refresh_id AND p.confirmed_at IS NULL
      ) THEN
        IF NOT oauth_confirm_by_use(presented, moment) THEN RETURN; END IF;
        g.last_used_at := moment;
      END IF;
      RETURN QUERY SELECT t.grant_id, t.expires_at, g.client_id, g.website_id, g.scopes, g.last_used_at;
    END $$`.execute(db);
}
