import { sql, type Kysely } from 'kysely';

/**
 * An access token's credential in one round trip: the token and its grant, and, on the first use
 * of a refreshed pair's token, the confirmation of that pair (oauth_confirm_by_use, migrations
 * 014 and 017) in the same call, where it was a second round trip after the read. No row: the
 * token is unknown, expired, revoked, or of a pair retired by its sibling's confirmation.
 * `last_used_at` is the moment when this call confirmed the pair (which records it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION oauth_authenticate(presented bytea, moment timestamptz)
    RETURNS TABLE (grant_id text, expires_at timestamptz, client_id text, website_id text,
                   scopes text[], last_used_at timestamptz)
    LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
      r record;
    BEGIN
      SELECT t.grant_id, t.pending, t.expires_at, g.client_id, g.website_id, g.scopes, g.last_used_at
        INTO r
        FROM oauth_access_tokens t JOIN oauth_grants g ON g.id = t.grant_id
        WHERE t.token_digest = presented AND t.revoked_at IS NULL AND g.revoked_at IS NULL;
      IF NOT FOUND OR r.expires_at <= moment THEN RETURN; END IF;
      IF r.pending THEN
        IF NOT oauth_confirm_by_use(presented, moment) THEN RETURN; END IF;
        r.last_used_at := moment;
      END IF;
      RETURN QUERY SELECT r.grant_id, r.expires_at, r.client_id, r.website_id, r.scopes, r.last_used_at;
    END $$`.execute(db);
}
