import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { KeyName } from '../db/idempotency-keys.ts';

/** SQL of the checkout's own: the lock that makes a form sent twice place one order. */

/**
 * Waits for, then holds to the commit, the lock of one checkout form's key: a second send of the
 * form (a double click) waits for the first to finish, then finds its order.
 */
export async function lockCheckoutKey(db: Db, name: KeyName): Promise<void> {
  const lock = `store-checkout:${name.website_id}:${name.caller}:${name.key}`;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${lock}, 0))`.execute(db);
}
