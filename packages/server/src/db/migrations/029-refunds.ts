import { sql, type Kysely } from 'kysely';

/**
 * Refunds (orders/refund-order.ts). The order keeps what was refunded in all as a column, for the
 * sums of the dashboard and the buyer's profile; its document's `refundedTotal` says the same on
 * the wire. Each refund is a row of its own: which lines and how many of each, the shipping, and
 * whether the items went back in stock, which a later refund or cancel must not count again. The
 * refund notice is a new kind of e-mail. Only additions: the release before this one keeps
 * working on the migrated schema.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders ADD COLUMN refunded_total_minor bigint NOT NULL DEFAULT 0`.execute(db);
  await db.schema
    .createTable('order_refunds')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor > 0`))
    // [{ "lineId": "...", "quantity": 2, "amountMinor": 2400 }], in the order's line order.
    .addColumn('lines', 'jsonb', (c) => c.notNull())
    .addColumn('shipping_minor', 'bigint', (c) => c.notNull())
    .addColumn('restocked', 'boolean', (c) => c.notNull())
    .addColumn('refunded_on', sql`timestamptz(3)`, (c) => c.notNull())
    .addColumn('external_transaction_id', 'text', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX order_refunds_order_idx ON order_refunds (website_id, order_id, refunded_on)`.execute(
    db,
  );
  await sql`ALTER TABLE emails DROP CONSTRAINT emails_kind_check`.execute(db);
  await sql`ALTER TABLE emails ADD CONSTRAINT emails_kind_check
    CHECK (kind IN ('order_confirmation', 'shipping_notice', 'cancellation_notice', 'refund_notice'))`.execute(
    db,
  );
}
