import { sql, type Kysely } from 'kysely';

/**
 * The refresh grant as one server-side function, so that a refresh is one round trip: the rule of
 * api-details 8, step for step as oauth/grants/refresh-token.ts describes it, under the grant's row
 * lock. The caller mints the new pair's secrets and ids and passes their digests; the function
 * answers what happened:
 *
 * - `ok`: the pair was stored (refresh token awaiting confirmation, access token pending);
 * - `invalid`: unknown, expired, retired (not confirmed: a sibling), another client's, or revoked;
 * - `replay`: a token already superseded by a confirmed pair: the grant is revoked and the replay
 *   recorded in the audit log;
 * - `too_many`: `max_unconfirmed` refreshes of the token await confirmation.
 *
 * Each statement in PL/pgSQL takes a fresh snapshot (READ COMMITTED), so the token read again
 * after the lock sees what the lock's previous holder committed, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Tokens are updated once or twice after their insert (confirmed, retired, pending): room left
  // in each page keeps those updates on the page, without new index entries (HOT).
  await sql`ALTER TABLE oauth_refresh_tokens SET (fillfactor = 70)`.execute(db);
  await sql`ALTER TABLE oauth_access_tokens SET (fillfactor = 70)`.execute(db);
  // Confirming a pair finds its access token by refresh token; so does the cascade of a delete.
  await sql`CREATE INDEX oauth_access_tokens_refresh_idx ON oauth_access_tokens (refresh_id)
              WHERE refresh_id IS NOT NULL`.execute(db);
  // Confirms a pair minted by a refresh: its refresh token becomes the live one, the token it was
  // refreshed from is retired as confirmed (presenting it again is a replay), and every other
  // unconfirmed pair refreshed from that token is retired, access token included. Callers hold
  // the grant's row lock, so two confirmations of one family never interleave.
  await sql`
    CREATE FUNCTION oauth_confirm_pair(refresh text, parent text, moment timestamptz)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE oauth_refresh_tokens SET confirmed_at = moment WHERE id = refresh;
      UPDATE oauth_access_tokens SET pending = false WHERE refresh_id = refresh;
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

  // The first use of a refreshed pair's access token confirms the pair, under the grant's lock:
  // of many parallel first calls one confirms and all succeed (security RT-6); a call with a
  // sibling whose pair lost the race fails. True when the token is still live.
  await sql`
    CREATE FUNCTION oauth_confirm_by_use(presented bytea, moment timestamptz)
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
      RETURN true;
    END $$`.execute(db);

  await sql`
    CREATE FUNCTION oauth_refresh(
      presented bytea, client text, moment timestamptz, max_unconfirmed int,
      new_refresh_id text, new_refresh_digest bytea, new_refresh_expires timestamptz,
      new_access_digest bytea, new_access_expires timestamptz,
      audit_id text, audit_ip text
    ) RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      g oauth_grants;
      t oauth_refresh_tokens;
      waiting int;
    BEGIN
      SELECT * INTO g FROM oauth_grants
        WHERE id = (SELECT grant_id FROM oauth_refresh_tokens WHERE token_digest = presented) FOR UPDATE;
      -- Another client's token is refused without telling it anything (security RT-1).
      IF NOT FOUND OR g.client_id <> client OR g.revoked_at IS NOT NULL THEN
        RETURN 'invalid';
      END IF;
      -- Read again under the lock: a confirmation may have retired it meanwhile.
      SELECT * INTO t FROM oauth_refresh_tokens WHERE token_digest = presented;
      IF t.expires_at <= moment THEN RETURN 'invalid'; END IF;
      IF t.retired_at IS NOT NULL THEN
        IF t.retired_reason = 'confirmed' THEN
          -- A token already superseded by a confirmed pair: someone holds a stolen copy (RT-8).
          UPDATE oauth_grants SET revoked_at = moment, revoked_reason = 'refresh_replay'
            WHERE id = g.id AND revoked_at IS NULL;
          INSERT INTO audit_events (id, at, kind, website_id, client_id, ip, detail)
            VALUES (audit_id, moment, 'refresh_replay', g.website_id, g.client_id, audit_ip,
                    jsonb_build_object('grantId', g.id));
          RETURN 'replay';
        END IF;
        RETURN 'invalid';
      END IF;
      -- Refreshing with the newest refresh token confirms its pair (RT-10). A token confirmed
      -- only now was never refreshed before, so no refresh of it awaits confirmation.
      IF t.confirmed_at IS NULL THEN
        PERFORM oauth_confirm_pair(t.id, t.parent_id, moment);
      ELSE
        SELECT count(*) INTO waiting FROM oauth_refresh_tokens
          WHERE parent_id = t.id AND confirmed_at IS NULL AND retired_at IS NULL;
        IF waiting >= max_unconfirmed THEN RETURN 'too_many'; END IF;
      END IF;
      INSERT INTO oauth_refresh_tokens (id, grant_id, parent_id, token_digest, expires_at, created_at)
        VALUES (new_refresh_id, g.id, t.id, new_refresh_digest, new_refresh_expires, moment);
      INSERT INTO oauth_access_tokens (token_digest, grant_id, refresh_id, pending, expires_at, created_at)
        VALUES (new_access_digest, g.id, new_refresh_id, true, new_access_expires, moment);
      RETURN 'ok';
    END $$`.execute(db);
  await upCodeExchange(db);
  // Caches of clients (oauth/client-cache.ts) drop everything on this notice, so a rotated secret
  // is refused on every instance at once.
  await sql`
    CREATE FUNCTION emporium_client_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('emporium_changes', 'oauth_client:' || OLD.id);
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER oauth_clients_changed AFTER UPDATE OF secret_digest, name OR DELETE ON oauth_clients
    FOR EACH ROW EXECUTE FUNCTION emporium_client_changed()`.execute(db);
}

/**
 * The code exchange in one round trip (api-details 8): the code is burned by its first
 * presentation, whatever comes of it; a second presentation revokes the grant and is audited
 * (security AC-3). The pair is stored only when every check passes. `verifier_s256` is the S256
 * of the code_verifier sent, or null when none was: it is compared with the challenge of the
 * authorization request, which is public (it travelled in the authorize URL).
 */
async function upCodeExchange(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION oauth_redeem_code(
      presented bytea, client text, moment timestamptz, redirect text, verifier_s256 text,
      new_refresh_id text, new_refresh_digest bytea, new_refresh_expires timestamptz,
      new_access_digest bytea, new_access_expires timestamptz, audit_id text
    ) RETURNS text LANGUAGE plpgsql AS $$
    DECLARE
      g oauth_grants;
    BEGIN
      UPDATE oauth_grants SET code_used_at = moment
        WHERE code_digest = presented AND code_used_at IS NULL RETURNING * INTO g;
      IF NOT FOUND THEN
        SELECT * INTO g FROM oauth_grants WHERE code_digest = presented;
        IF FOUND AND g.revoked_at IS NULL THEN
          UPDATE oauth_grants SET revoked_at = moment, revoked_reason = 'code_replay' WHERE id = g.id;
          INSERT INTO audit_events (id, at, kind, website_id, client_id, detail)
            VALUES (audit_id, moment, 'code_replay', g.website_id, g.client_id,
                    jsonb_build_object('grantId', g.id));
          RETURN 'replay';
        END IF;
        RETURN 'invalid';
      END IF;
      -- Another client's code is burned all the same (AC-5).
      IF g.client_id <> client OR g.revoked_at IS NOT NULL OR g.code_expires_at <= moment THEN
        RETURN 'invalid';
      END IF;
      IF g.redirect_uri <> redirect THEN RETURN 'redirect'; END IF;
      IF g.code_challenge IS NOT NULL AND verifier_s256 IS NULL THEN RETURN 'pkce_required'; END IF;
      IF g.code_challenge IS NOT NULL AND g.code_challenge <> verifier_s256 THEN RETURN 'pkce_mismatch'; END IF;
      IF g.code_challenge IS NULL AND verifier_s256 IS NOT NULL THEN RETURN 'pkce_unexpected'; END IF;
      IF g.offline THEN
        INSERT INTO oauth_refresh_tokens (id, grant_id, parent_id, token_digest, expires_at, created_at, confirmed_at)
          VALUES (new_refresh_id, g.id, NULL, new_refresh_digest, new_refresh_expires, moment, moment);
      END IF;
      INSERT INTO oauth_access_tokens (token_digest, grant_id, refresh_id, pending, expires_at, created_at)
        VALUES (new_access_digest, g.id, CASE WHEN g.offline THEN new_refresh_id END, false,
                new_access_expires, moment);
      RETURN CASE WHEN g.offline THEN 'offline' ELSE 'online' END;
    END $$`.execute(db);
}
