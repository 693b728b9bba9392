import type { Db } from '../db/database.ts';
import type { StorePagesTable } from '../db/schema.ts';

export type StorePageRow = StorePagesTable;

export async function insertStorePage(db: Db, row: StorePageRow): Promise<void> {
  await db.insertInto('store_pages').values(row).execute();
}

export function findStorePage(db: Db, websiteId: string, id: string): Promise<StorePageRow | undefined> {
  return db
    .selectFrom('store_pages')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function storePageSlugs(db: Db, websiteId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('store_pages')
    .select('url_slug')
    .where('website_id', '=', websiteId)
    .execute();
  return new Set(rows.map((r) => r.url_slug));
}

/** Every store page's title and slug, in creation order: the owner's links to them. */
export function storePageLinks(db: Db, websiteId: string) {
  return db
    .selectFrom('store_pages')
    .select(['title', 'url_slug'])
    .where('website_id', '=', websiteId)
    .orderBy('created_at')
    .execute();
}

/** A page of store pages in creation order, after the given id. */
export function listStorePages(
  db: Db,
  websiteId: string,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('store_pages')
    .selectAll()
    .where('website_id', '=', websiteId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '>', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query.execute();
}
