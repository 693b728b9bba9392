-- `oauth_client:<id>` when a client's secret or name changes or it is deleted: the caches of
-- clients (oauth/client-cache.ts) drop everything on it, so a rotated secret is refused on every
-- instance at once.
CREATE OR REPLACE FUNCTION emporium_client_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      PERFORM pg_notify('emporium_changes', 'oauth_client:' || OLD.id);
      RETURN NULL;
    END $$;
