-- A deleted refresh token takes the access token issued with it, and its children forget it as
-- their parent, once per delete statement (trigger oauth_refresh_tokens_deleted): what ON DELETE
-- CASCADE and SET NULL did before the tokens lost their foreign keys (see emporium_grants_deleted).
CREATE OR REPLACE FUNCTION emporium_refresh_tokens_deleted()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      DELETE FROM oauth_access_tokens WHERE refresh_id IN (SELECT id FROM gone);
      UPDATE oauth_refresh_tokens SET parent_id = NULL WHERE parent_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$;
