import { sql, type Kysely } from 'kysely';

/**
 * Announces the changes that in-process caches depend on (db/change-feed.ts), from the database
 * itself so that every writer is covered: any instance, the CLI, a cascade from a deleted website.
 * Payloads: `product:<id>:<modifiedOn in ms>` (`:gone` when deleted) for the cached documents,
 * `catalog:<website id>` once a statement for each website whose products it inserted, changed
 * or deleted, for the cached list pages, and `api_key:<digest hex>`. A bulk insert of a million
 * products thus sends one notice, not a million.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION emporium_product_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('emporium_changes', 'product:' || OLD.id || ':gone');
      ELSE
        PERFORM pg_notify('emporium_changes',
          'product:' || NEW.id || ':' || (extract(epoch FROM NEW.modified_on) * 1000)::bigint);
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER products_changed AFTER UPDATE OR DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION emporium_product_changed()`.execute(db);

  // Transition tables need one trigger per event; the function reads the one its event has.
  await sql`
    CREATE FUNCTION emporium_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('emporium_changes', 'catalog:' || website_id)
          FROM (SELECT DISTINCT website_id FROM old_rows) AS changed;
      ELSE
        PERFORM pg_notify('emporium_changes', 'catalog:' || website_id)
          FROM (SELECT DISTINCT website_id FROM new_rows) AS changed;
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  for (const [event, table] of [
    ['INSERT', 'NEW TABLE AS new_rows'],
    ['UPDATE', 'NEW TABLE AS new_rows'],
    ['DELETE', 'OLD TABLE AS old_rows'],
  ] as const) {
    await sql
      .raw(
        `CREATE TRIGGER products_${event.toLowerCase()}_catalog_changed AFTER ${event} ON products
         REFERENCING ${table} FOR EACH STATEMENT EXECUTE FUNCTION emporium_catalog_changed()`,
      )
      .execute(db);
  }

  await sql`
    CREATE FUNCTION emporium_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('emporium_changes', 'api_key:' || encode(OLD.key_digest, 'hex'));
      RETURN NULL;
    END $$`.execute(db);
  // last_used_at is written once a minute by every key in use and changes nothing cached.
  await sql`
    CREATE TRIGGER api_keys_changed AFTER UPDATE OF revoked_at, scopes, website_id, key_digest OR DELETE
    ON api_keys FOR EACH ROW EXECUTE FUNCTION emporium_api_key_changed()`.execute(db);
}
