import { sql } from 'kysely';
import type { Db } from './database.ts';

/**
 * The Idempotency-Key of the platform's writes that take one (inventory adjustments, order
 * imports): a key belongs to the caller (API key or OAuth app) and is kept 48 hours with the
 * digest of the body it was used with (api-details 7).
 */
export const KEY_KEPT_MS = 48 * 3600_000;

/** The tables of kept keys, one per operation, so one key may name an adjustment and an order. */
export type KeyTable = 'inventory_adjustment_keys' | 'order_import_keys';

/** Inventory's lock names predate orders and stay as they were, so every instance agrees on them. */
const LOCK_PREFIX: Record<KeyTable, string> = { inventory_adjustment_keys: '', order_import_keys: 'order:' };

export interface KeyName {
  website_id: string;
  caller: string;
  key: string;
}

/**
 * Tries to take the transaction-scoped advisory lock of a key: false when another transaction
 * holds it, that is while a request with the same key is still running.
 */
export async function tryLockKey(db: Db, table: KeyTable, name: KeyName): Promise<boolean> {
  const lock = `${LOCK_PREFIX[table]}${name.website_id}:${name.caller}:${name.key}`;
  const { rows } = await sql<{
    locked: boolean;
  }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${lock}, 0)) AS locked`.execute(db);
  return rows[0]?.locked === true;
}

/** What a kept key says: the digest of its body, and for an order import the order it made. */
interface KeptKeys {
  inventory_adjustment_keys: { request_digest: Buffer };
  order_import_keys: { request_digest: Buffer; order_id: string };
}

/** The key if it was used since `since` (its columns named, so that the statement is prepared). */
export function findKey<T extends KeyTable>(
  db: Db,
  table: T,
  name: KeyName,
  since: Date,
): Promise<KeptKeys[T] | undefined> {
  const columns = table === 'order_import_keys' ? ['request_digest', 'order_id'] : ['request_digest'];
  return db
    .selectFrom(table as KeyTable)
    .select(columns as 'request_digest'[])
    .where('website_id', '=', name.website_id)
    .where('caller', '=', name.caller)
    .where('key', '=', name.key)
    .where('created_at', '>', since)
    .executeTakeFirst() as Promise<KeptKeys[T] | undefined>;
}
