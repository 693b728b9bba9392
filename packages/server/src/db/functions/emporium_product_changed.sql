-- Announces a change of one product to the caches of every instance (db/change-feed.ts):
-- `product:<id>:<modifiedOn in ms>`, or `product:<id>:gone` once deleted. Its triggers
-- (products_changed, products_deleted) fire on an update that changes modified_on and on a delete:
-- a change writes a product's row and then, last, its modifiedOn (db/change-clock.ts), and only
-- that second write, the one with the new version, is announced.
CREATE OR REPLACE FUNCTION emporium_product_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('emporium_changes', 'product:' || OLD.id || ':gone');
      ELSE
        PERFORM pg_notify('emporium_changes',
          'product:' || NEW.id || ':' || (extract(epoch FROM NEW.modified_on) * 1000)::bigint);
      END IF;
      RETURN NULL;
    END $$;
