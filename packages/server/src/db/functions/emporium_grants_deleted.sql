-- A deleted grant takes its tokens with it, once per delete statement (trigger
-- oauth_grants_deleted). Tokens have no foreign keys: each key was a lookup and a row lock on
-- every insert, and tokens are inserted only by oauth_redeem_code and oauth_refresh, under the
-- grant's row lock, so what the keys checked holds by construction (bench/README.md, "OAuth
-- benchmark"). A grant deleted while a refresh of it runs waits for that refresh's commit, then
-- this deletes the tokens the refresh inserted.
CREATE OR REPLACE FUNCTION emporium_grants_deleted()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      DELETE FROM oauth_access_tokens WHERE grant_id IN (SELECT id FROM gone);
      DELETE FROM oauth_refresh_tokens WHERE grant_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$;
