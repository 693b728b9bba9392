import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ImagesTable, ImageStatus } from '../db/schema.ts';

/** SQL for product images; nothing else touches the images table. */

export async function countImages(db: Db, productId: string): Promise<number> {
  const row = await db
    .selectFrom('images')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('product_id', '=', productId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertImage(db: Db, row: ImagesTable): Promise<void> {
  await db.insertInto('images').values(row).execute();
}

/** An image of a product of the website, or undefined (another website's looks the same). */
export function findImage(
  db: Db,
  websiteId: string,
  productId: string,
  imageId: string,
): Promise<ImagesTable | undefined> {
  return db
    .selectFrom('images')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('product_id', '=', productId)
    .where('id', '=', imageId)
    .executeTakeFirst();
}

export function findImageById(db: Db, imageId: string): Promise<ImagesTable | undefined> {
  return db.selectFrom('images').selectAll().where('id', '=', imageId).executeTakeFirst();
}

export async function setImageStatus(db: Db, imageId: string, status: ImageStatus): Promise<void> {
  await db.updateTable('images').set({ status }).where('id', '=', imageId).execute();
}

export async function updateImage(db: Db, imageId: string, changes: Partial<ImagesTable>): Promise<void> {
  await db.updateTable('images').set(changes).where('id', '=', imageId).execute();
}

/** The product's image ids in their order. */
export async function imageOrder(db: Db, productId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('images')
    .select('id')
    .where('product_id', '=', productId)
    .orderBy('position')
    .execute();
  return rows.map((r) => r.id);
}

/** Positions 0, 1, 2... in the order given: orderIndex stays dense (api-details 5). */
export async function renumberImages(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`UPDATE images SET position = o.ordinality - 1
            FROM unnest(${ids}::text[]) WITH ORDINALITY AS o(id, ordinality)
            WHERE images.id = o.id`.execute(db);
}

/** Which of these image ids have a row. */
export async function existingImageIds(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('images').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

export async function deleteImage(db: Db, imageId: string): Promise<void> {
  await db.deleteFrom('images').where('id', '=', imageId).execute();
}
