import type { Db } from '../db/database.ts';
import type { WebsitesTable } from '../db/schema.ts';

export type WebsiteRow = WebsitesTable;

export function findWebsite(db: Db, id: string): Promise<WebsiteRow | undefined> {
  return db.selectFrom('websites').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A website, if it is this owner's. */
export function findOwnedWebsite(
  db: Db,
  ownerId: string,
  websiteId: string,
): Promise<WebsiteRow | undefined> {
  return db
    .selectFrom('websites')
    .selectAll()
    .where('id', '=', websiteId)
    .where('owner_id', '=', ownerId)
    .executeTakeFirst();
}

/** The owner's websites, oldest first. */
export function listOwnedWebsites(db: Db, ownerId: string): Promise<WebsiteRow[]> {
  return db
    .selectFrom('websites')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .orderBy('created_at')
    .execute();
}

export function findOwnerIdByEmail(db: Db, email: string): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('owners')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .executeTakeFirst();
}

/** A new website's row: its clock runs with the service's until a test moves it. */
export async function insertWebsite(db: Db, row: Omit<WebsiteRow, 'clock_shift_ms'>): Promise<void> {
  await db
    .insertInto('websites')
    .values({ ...row, clock_shift_ms: 0 })
    .execute();
}
