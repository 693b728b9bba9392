-- `oauth_grant:<id>` when a grant is revoked or deleted: the caches of access tokens
-- (oauth/access-tokens.ts) drop everything on it (db/change-feed.ts), so a revoked grant's tokens
-- are refused on every instance at once.
CREATE OR REPLACE FUNCTION emporium_grant_revoked()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      PERFORM pg_notify('emporium_changes', 'oauth_grant:' || OLD.id);
      RETURN NULL;
    END $$;
