import { sql, type Kysely } from 'kysely';

/**
 * Download links of the store's DIGITAL order lines (orders/download-links.ts): one row a link,
 * made with the order (and again when the owner sends a fresh one), with when it stops working
 * and how often it was used. The link's signature is not stored: it is computed from the row
 * under a key derived from a server secret. Only additions: the release before keeps working.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('order_downloads')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('line_id', 'text', (c) => c.notNull())
    // No reference: a product deleted later leaves its sales, and their links say it is gone.
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('downloads', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`downloads >= 0`),
    )
    .addColumn('created_at', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX order_downloads_order_idx ON order_downloads (website_id, order_id, created_at)`.execute(
    db,
  );
}
