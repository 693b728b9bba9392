import { sql, type Kysely } from 'kysely';

/**
 * A canceled order gives its discount use back (orders/cancel-order.ts), which finds the order's
 * redemptions by the order: without this index, a scan of every redemption on each cancel.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX discount_redemptions_order_idx ON discount_redemptions (order_id)`.execute(db);
}
