-- Confirms a pair minted by a refresh: its refresh token becomes the live one, the token it was
-- refreshed from is retired as confirmed (presenting it again is a replay), and every other
-- unconfirmed pair refreshed from that token is retired, access token included. Callers hold the
-- grant's row lock, so two confirmations of one family never interleave.
--
-- A pair awaits confirmation while its refresh token's confirmed_at is null. The access token's
-- `pending` said the same a second time and is no longer read or updated (its rows keep the value
-- they were inserted with): one statement less on every refresh and first call.
CREATE OR REPLACE FUNCTION oauth_confirm_pair(refresh text, parent text, moment timestamptz)
RETURNS void
LANGUAGE plpgsql
AS $$
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
    END $$;
