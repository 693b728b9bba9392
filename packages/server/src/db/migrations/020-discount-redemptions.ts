import { sql, type Kysely } from 'kysely';

/**
 * One row per order placed with a discount: what makes `isOncePerCustomer` enforceable. The
 * buyer is known to the storefront's checkout by the e-mail address typed (the contact and the
 * profile are found by it too), kept lower-cased. Deleting the discount deletes its uses.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('discount_redemptions')
    .addColumn('discount_id', 'text', (c) => c.notNull().references('discounts.id').onDelete('cascade'))
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('buyer_email', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('redeemed_on', sql`timestamptz(3)`, (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX discount_redemptions_buyer_idx
            ON discount_redemptions (discount_id, buyer_email)`.execute(db);
}
