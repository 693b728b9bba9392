-- The code exchange in one round trip (api-details 8): the code is burned by its first
-- presentation, whatever comes of it; a second presentation revokes the grant and is audited
-- (security AC-3). The pair is stored only when every check passes. `verifier_s256` is the S256 of
-- the code_verifier sent, or null when none was: it is compared with the challenge of the
-- authorization request, which is public (it travelled in the authorize URL).
CREATE OR REPLACE FUNCTION oauth_redeem_code(
  presented bytea, client text, moment timestamptz, redirect text, verifier_s256 text,
  new_refresh_id text, new_refresh_digest bytea, new_refresh_expires timestamptz,
  new_access_digest bytea, new_access_expires timestamptz, audit_id text
)
RETURNS text
LANGUAGE plpgsql
AS $$
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
    END $$;
