-- `api_key:<digest hex>` when a key is revoked, rescoped, moved or deleted, for the caches of API
-- keys. Its trigger (api_keys_changed) leaves out last_used_at, written once a minute by every key
-- in use, which changes nothing cached.
CREATE OR REPLACE FUNCTION emporium_api_key_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      PERFORM pg_notify('emporium_changes', 'api_key:' || encode(OLD.key_digest, 'hex'));
      RETURN NULL;
    END $$;
