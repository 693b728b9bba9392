import { sql, type Kysely } from 'kysely';

/**
 * The e-mails a store sends its shoppers (emails/): each written in the transaction of the change
 * it tells of, so none is kept or sent for a change that rolled back. `status` is the SMTP
 * delivery's: NOT_SENT when no SMTP server is configured, else PENDING until SENT or FAILED.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = sql`timestamptz(3)`;
  await db.schema
    .createTable('emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind IN ('order_confirmation', 'shipping_notice', 'cancellation_notice')`),
    )
    .addColumn('order_id', 'text')
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_on', time, (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status IN ('NOT_SENT', 'PENDING', 'SENT', 'FAILED')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('sent_on', time)
    // Held by the worker sending it, so a job handed out twice never sends at once.
    .addColumn('leased_until', time)
    .execute();
  await sql`CREATE INDEX emails_website_idx ON emails (website_id, created_on DESC, id)`.execute(db);
}
