import { sql, type Kysely } from 'kysely';

/**
 * Gift cards (giftcards/): each card bought in the store, its balance, and its history (issued,
 * redeemed by an order, given back by a refund, disabled). A card's code is never stored: only
 * its SHA-256 digest, unique per website, by which a code is looked up, and its last four
 * characters to show (docs/security.md, SC-1). An e-mail that carries a code keeps its body sealed
 * (AES-256-GCM) in `sealed`, its html and text columns then holding no code. Only additions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = sql`timestamptz(3)`;
  await db.schema
    .createTable('gift_cards')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('code_digest', 'bytea', (c) => c.notNull())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor >= 0`))
    .addColumn('balance_minor', 'bigint', (c) =>
      c.notNull().check(sql`balance_minor >= 0 AND balance_minor <= amount_minor`),
    )
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state IN ('ACTIVE', 'DISABLED')`))
    // The order that bought it and its line; a card outlives neither's deletion (none exists).
    .addColumn('order_id', 'text', (c) => c.references('orders.id').onDelete('set null'))
    .addColumn('line_id', 'text')
    .addColumn('issued_on', time, (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX gift_cards_code_idx ON gift_cards (website_id, code_digest)`.execute(db);
  await sql`CREATE INDEX gift_cards_website_idx ON gift_cards (website_id, issued_on DESC, id)`.execute(db);
  await sql`CREATE INDEX gift_cards_order_idx ON gift_cards (order_id)`.execute(db);
  await db.schema
    .createTable('gift_card_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('gift_card_id', 'uuid', (c) => c.notNull().references('gift_cards.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind IN ('ISSUED', 'REDEEMED', 'REFUNDED', 'DISABLED')`),
    )
    // What the balance gained (ISSUED, REFUNDED) or lost (REDEEMED, DISABLED), never below 0.
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor >= 0`))
    .addColumn('balance_minor', 'bigint', (c) => c.notNull())
    .addColumn('order_id', 'text')
    .addColumn('happened_on', time, (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX gift_card_events_card_idx ON gift_card_events (gift_card_id, happened_on, id)`.execute(
    db,
  );
  await sql`ALTER TABLE emails ADD COLUMN sealed bytea`.execute(db);
}
