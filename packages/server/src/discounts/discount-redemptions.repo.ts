import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** SQL of a discount's uses: the row lock that counts them one at a time, and the record of each. */

/**
 * Locks the discounts' rows to the commit, in id order (two checkouts never wait on each other
 * crosswise), so their uses are counted one at a time; returns the ids still there.
 */
export async function lockDiscounts(db: Db, websiteId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('discounts')
    .select('id')
    .where('website_id', '=', websiteId)
    .where('id', 'in', [...ids].sort())
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

/** Which of these discounts the buyer (by e-mail, lower-cased) has used already. */
export async function redeemedBy(db: Db, ids: string[], buyerEmail: string): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('discount_redemptions')
    .select('discount_id')
    .distinct()
    .where('discount_id', 'in', ids)
    .where('buyer_email', '=', buyerEmail)
    .execute();
  return new Set(rows.map((r) => r.discount_id));
}

export interface Redemption {
  discountId: string;
  websiteId: string;
  buyerEmail: string;
  orderId: string;
  redeemedOn: Date;
}

/** One more use: counted on the discount (its row locked by the caller) and recorded. */
export async function insertRedemption(db: Db, use: Redemption): Promise<void> {
  await db
    .updateTable('discounts')
    .set({ number_of_uses: sql`number_of_uses + 1`, last_redeemed_at: use.redeemedOn })
    .where('id', '=', use.discountId)
    .where('website_id', '=', use.websiteId)
    .execute();
  await db
    .insertInto('discount_redemptions')
    .values({
      discount_id: use.discountId,
      website_id: use.websiteId,
      buyer_email: use.buyerEmail,
      order_id: use.orderId,
      redeemed_on: use.redeemedOn,
    })
    .execute();
}

/**
 * Locks the rows of the discounts an order used, as a checkout locks them before the catalog's
 * rows, so that a cancel and a checkout never wait on each other crosswise.
 */
export async function lockDiscountsOfOrder(db: Db, websiteId: string, orderId: string): Promise<void> {
  const rows = await db
    .selectFrom('discount_redemptions')
    .select('discount_id')
    .distinct()
    .where('order_id', '=', orderId)
    .where('website_id', '=', websiteId)
    .execute();
  await lockDiscounts(
    db,
    websiteId,
    rows.map((r) => r.discount_id),
  );
}

/**
 * A canceled order's uses given back (their rows locked by lockDiscountsOfOrder): its records
 * removed, so a once-per-customer code can be used again, and each discount's count and last
 * redemption taken from the records left.
 */
export async function returnRedemptions(db: Db, websiteId: string, orderId: string): Promise<void> {
  const gone = await db
    .deleteFrom('discount_redemptions')
    .where('order_id', '=', orderId)
    .where('website_id', '=', websiteId)
    .returning('discount_id')
    .execute();
  for (const discountId of new Set(gone.map((r) => r.discount_id))) {
    const returned = gone.filter((r) => r.discount_id === discountId).length;
    await db
      .updateTable('discounts')
      .set({
        number_of_uses: sql`greatest(number_of_uses - ${returned}, 0)`,
        last_redeemed_at: sql`(SELECT max(redeemed_on) FROM discount_redemptions WHERE discount_id = ${discountId})`,
      })
      .where('id', '=', discountId)
      .execute();
  }
}
