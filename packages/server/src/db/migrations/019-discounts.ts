import { sql, type Kysely } from 'kysely';

/**
 * Discounts v1 (platform-surface 2.7). `criteria` and `template` hold the model of
 * shared/discount-model.ts (money in minor units of the website's currency); the columns
 * beside them are what lists filter and sort on. A promo code is unique in its website whatever
 * its case (409 on a second).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const time = sql`timestamptz(3)`;
  await db.schema
    .createTable('discounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('criteria_type', 'text', (c) => c.notNull())
    .addColumn('template_type', 'text', (c) => c.notNull())
    .addColumn('trigger_type', 'text', (c) => c.notNull().check(sql`trigger_type IN ('AUTO', 'CODE')`))
    .addColumn('promo_code', 'text')
    .addColumn('criteria', 'jsonb', (c) => c.notNull())
    .addColumn('template', 'jsonb', (c) => c.notNull())
    .addColumn('valid_from', time, (c) => c.notNull())
    .addColumn('valid_to', time)
    .addColumn('is_limited_uses', 'boolean', (c) => c.notNull())
    .addColumn('max_uses_allowed', 'integer')
    .addColumn('is_once_per_customer', 'boolean', (c) => c.notNull())
    .addColumn('number_of_uses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_redeemed_at', time)
    .addColumn('subscription_options', 'text', (c) => c.notNull())
    .addColumn('payment_plan_options', 'text', (c) => c.notNull())
    .addColumn('created_on', time, (c) => c.notNull())
    .addColumn('modified_on', time, (c) => c.notNull())
    .addCheckConstraint('discounts_promo_code_check', sql`(trigger_type = 'CODE') = (promo_code IS NOT NULL)`)
    .execute();
  await sql`CREATE UNIQUE INDEX discounts_promo_code_key ON discounts (website_id, lower(promo_code))
            WHERE promo_code IS NOT NULL`.execute(db);
  await sql`CREATE INDEX discounts_created_idx ON discounts (website_id, created_on, id)`.execute(db);
}
