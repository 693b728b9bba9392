import { sql, type Kysely } from 'kysely';

/**
 * Orders, their transaction documents and the customer profiles of their buyers
 * (platform-surface 2.1 to 2.3).
 *
 * An order's columns hold what lists filter on and what can change after it was placed (its
 * fulfillment and payment state, shipments, the buyer's e-mail); `document` holds the rest as
 * sent, in the field order of the wire (`json` keeps it; `jsonb` would not), money included as
 * decimal strings, since nothing of it changes. A transaction document likewise.
 *
 * `modified_on` of orders and documents comes from the website's change clock
 * (db/change-clock.ts), as products' does, so window readers miss nothing. A statement that
 * inserts, changes or deletes orders sends `orders:<website id>`, which drops the cached order
 * list pages of that website (catalog/list-cache.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = sql`timestamptz(3)`;

  await db.schema
    .createTable('profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('has_account', 'boolean', (c) => c.notNull())
    .addColumn('accepts_marketing', 'boolean', (c) => c.notNull())
    // The order Address shape, from the buyer's latest order that had one.
    .addColumn('address', 'jsonb')
    .addColumn('order_count', 'integer', (c) => c.notNull())
    .addColumn('total_order_minor', 'bigint', (c) => c.notNull())
    .addColumn('total_refund_minor', 'bigint', (c) => c.notNull())
    .addColumn('first_order_on', time)
    .addColumn('last_order_on', time)
    .addColumn('created_on', sql`timestamptz(6)`, (c) => c.notNull())
    .execute();
  // One profile per buyer of a website, found by e-mail whatever its case.
  await sql`CREATE UNIQUE INDEX profiles_email_key ON profiles (website_id, lower(email))`.execute(db);
  await sql`CREATE INDEX profiles_id_idx ON profiles (website_id, id)`.execute(db);
  await sql`CREATE INDEX profiles_created_idx ON profiles (website_id, created_on, id)`.execute(db);
  await sql`CREATE INDEX profiles_last_name_idx ON profiles (website_id, last_name, id)`.execute(db);

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    // Null only inside the placing transaction: the number is given last (orders.repo.ts).
    .addColumn('order_number', 'integer')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.references('profiles.id'))
    .addColumn('customer_email', 'text')
    .addColumn('fulfillment_status', 'text', (c) =>
      c.notNull().check(sql`fulfillment_status IN ('PENDING', 'FULFILLED', 'CANCELED')`),
    )
    .addColumn('fulfilled_on', time)
    .addColumn('fulfillments', 'jsonb', (c) => c.notNull())
    .addColumn('payment_state', 'text', (c) => c.notNull())
    .addColumn('grand_total_minor', 'bigint', (c) => c.notNull())
    // When it was placed, as a time: `document` keeps the text an import sent.
    .addColumn('placed_on', time, (c) => c.notNull())
    .addColumn('modified_on', time, (c) => c.notNull())
    .addColumn('document', 'json', (c) => c.notNull())
    .addUniqueConstraint('orders_number_key', ['website_id', 'order_number'])
    .execute();
  // The list: newest change first, with the default payment-state filter answered from the index.
  await sql`CREATE INDEX orders_page_idx ON orders (website_id, modified_on, id)
            INCLUDE (payment_state, fulfillment_status)`.execute(db);
  await sql`CREATE INDEX orders_customer_idx ON orders (website_id, customer_id, modified_on, id)`.execute(
    db,
  );
  await sql`CREATE INDEX orders_placed_idx ON orders (website_id, placed_on, id)`.execute(db);

  // The last order number each website gave: numbers are sequential without gaps.
  await db.schema
    .createTable('order_numbers')
    .addColumn('website_id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('last', 'integer', (c) => c.notNull())
    .execute();

  // Imports by Idempotency-Key, as inventory_adjustment_keys, with the order each one made.
  await db.schema
    .createTable('order_import_keys')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_digest', 'bytea', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addPrimaryKeyConstraint('order_import_keys_pkey', ['website_id', 'caller', 'key'])
    .execute();
  await db.schema
    .createIndex('order_import_keys_created_idx')
    .on('order_import_keys')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('transaction_documents')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('order_id', 'text', (c) => c.references('orders.id').onDelete('cascade'))
    .addColumn('created_on', time, (c) => c.notNull())
    .addColumn('modified_on', time, (c) => c.notNull())
    .addColumn('voided', 'boolean', (c) => c.notNull())
    .addColumn('document', 'json', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX transaction_documents_page_idx ON transaction_documents (website_id, modified_on, id)`.execute(
    db,
  );
  await sql`CREATE INDEX transaction_documents_order_idx ON transaction_documents (website_id, order_id)`.execute(
    db,
  );

  await sql`
    CREATE FUNCTION emporium_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('emporium_changes', 'orders:' || website_id)
          FROM (SELECT DISTINCT website_id FROM old_rows) AS changed;
      ELSE
        PERFORM pg_notify('emporium_changes', 'orders:' || website_id)
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
        `CREATE TRIGGER orders_${event.toLowerCase()}_changed AFTER ${event} ON orders
         REFERENCING ${table} FOR EACH STATEMENT EXECUTE FUNCTION emporium_orders_changed()`,
      )
      .execute(db);
  }
}
