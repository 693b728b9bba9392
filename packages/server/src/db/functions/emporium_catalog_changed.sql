-- `catalog:<website id>` once a statement for each website whose products it inserted, changed or
-- deleted, for the cached list pages: a bulk insert of a million products sends one notice, not a
-- million. Transition tables need one trigger per event (products_<event>_catalog_changed); this
-- reads the one its event has.
CREATE OR REPLACE FUNCTION emporium_catalog_changed()
RETURNS trigger
LANGUAGE plpgsql
AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('emporium_changes', 'catalog:' || website_id)
          FROM (SELECT DISTINCT website_id FROM old_rows) AS changed;
      ELSE
        PERFORM pg_notify('emporium_changes', 'catalog:' || website_id)
          FROM (SELECT DISTINCT website_id FROM new_rows) AS changed;
      END IF;
      RETURN NULL;
    END $$;
