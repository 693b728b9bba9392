import type { Db } from '../db/database.ts';
import type { WebsitesTable } from '../db/schema.ts';

export type WebsiteRow = WebsitesTable;

export function findWebsite(db: Db, id: string): Promise<WebsiteRow | undefined> {
  return db.selectFrom('websites').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findOwnerIdByEmail(db: Db, email: string): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('owners')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
}

export async function insertWebsite(db: Db, row: WebsiteRow): Promise<void> {
  await db.insertInto('websites').values(row).execute();
}
