import { randomBytes } from 'node:crypto';
import type { Db } from './database.ts';

/** A random key shared by every instance, made once on first use (e.g. the cursor HMAC key). */
export async function serverSecret(db: Db, name: string): Promise<Buffer> {
  await db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32) })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('server_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value;
}
