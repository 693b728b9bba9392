-- The refresh grant in one round trip: the rule of api-details 8, step for step as
-- oauth/grants/refresh-token.ts describes it, under the grant's row lock. The caller mints the new
-- pair's secrets and ids and passes their digests; the answer says what happened:
--
-- - `ok`: the pair was stored (refresh token awaiting confirmation);
-- - `invalid`: unknown, expired, retired (not confirmed: a sibling), another client's, or revoked;
-- - `replay`: a token already superseded by a confirmed pair: the grant is revoked and the replay
--   recorded in the audit log;
-- - `too_many`: `max_unconfirmed` refreshes of the token await confirmation.
--
-- Each statement in PL/pgSQL takes a fresh snapshot (READ COMMITTED), so the token read again
-- after the lock sees what the lock's previous holder committed.
CREATE OR REPLACE FUNCTION oauth_refresh(
  presented bytea, client text, moment timestamptz, max_unconfirmed integer,
  new_refresh_id text, new_refresh_digest bytea, new_refresh_expires timestamptz,
  new_access_digest bytea, new_access_expires timestamptz,
  audit_id text, audit_ip text
)
RETURNS text
LANGUAGE plpgsql
AS $$
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
    END $$;
