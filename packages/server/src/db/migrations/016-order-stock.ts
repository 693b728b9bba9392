import { sql, type Kysely } from 'kysely';

/**
 * Whether placing the order took its lines from stock: an import takes stock only with
 * `inventoryBehavior: DEDUCT`, so canceling one without it must put nothing back (a restock
 * would add items that never left). Null for orders placed before this was recorded: the owner
 * who cancels one says whether to restock.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE orders ADD COLUMN stock_taken boolean`.execute(db);
}
