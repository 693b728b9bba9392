-- An access token's credential in one round trip: the token and its grant, and, on the first use
-- of a refreshed pair's token, the confirmation of that pair (oauth_confirm_by_use) in the same
-- call. No row: the token is unknown, expired, revoked, or of a pair retired by its sibling's
-- confirmation. `last_used_at` is the moment when this call confirmed the pair (which records it).
--
-- The token, then its grant, then its refresh token, each found by its key: as one join, the plan
-- kept for the session was made while the tables were small, and went on reading every grant once
-- they were not. An access token without a refresh token (an online grant's) is never pending.
CREATE OR REPLACE FUNCTION oauth_authenticate(presented bytea, moment timestamptz)
RETURNS TABLE (
  grant_id text, expires_at timestamptz, client_id text, website_id text, scopes text[],
  last_used_at timestamptz
)
LANGUAGE plpgsql
AS $$
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
    END $$;
