import type { Db } from '../db/database.ts';
import type { OwnerSessionsTable } from '../db/schema.ts';

/** An owner's sign-in session; the token itself is never stored, only its digest (security GR-3). */
export type OwnerSessionRow = OwnerSessionsTable;

/** The owner signed in with the token of this digest, if the session has not expired. */
export function findSessionOwner(
  db: Db,
  tokenDigest: Buffer,
  now: Date,
): Promise<{ id: string; email: string } | undefined> {
  return db
    .selectFrom('owner_sessions')
    .innerJoin('owners', 'owners.id', 'owner_sessions.owner_id')
    .select(['owners.id', 'owners.email'])
    .where('owner_sessions.token_digest', '=', tokenDigest)
    .where('owner_sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function insertSession(db: Db, row: OwnerSessionRow): Promise<void> {
  await db.insertInto('owner_sessions').values(row).execute();
}

export async function deleteSession(db: Db, tokenDigest: Buffer): Promise<void> {
  await db.deleteFrom('owner_sessions').where('token_digest', '=', tokenDigest).execute();
}
