-- The first use of a refreshed pair's access token confirms the pair, under the grant's lock: of
-- many parallel first calls one confirms and all succeed (security RT-6); a call with a sibling
-- whose pair lost the race fails. True when the token is still live. It records the grant's last
-- use in the same transaction, where the grant's row is locked already.
CREATE OR REPLACE FUNCTION oauth_confirm_by_use(presented bytea, moment timestamptz)
RETURNS boolean
LANGUAGE plpgsql
AS $$
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
    END $$;
