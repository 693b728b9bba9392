-- `orders:<website id>` once a statement for each website whose orders it inserted, changed or
-- deleted: drops the cached order list pages of that website (catalog/list-cache.ts). One trigger
-- per event (orders_<event>_changed), as emporium_catalog_changed.
CREATE OR REPLACE FUNCTION emporium_orders_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('emporium_changes', 'orders:' || website_id)
          FROM (SELECT DISTINCT website_id FROM old_rows) AS changed;
      ELSE
        PERFORM pg_notify('emporium_changes', 'orders:' || website_id)
          FROM (SELECT DISTINCT website_id FROM new_rows) AS changed;
      END IF;
      RETURN NULL;
    END $$;
