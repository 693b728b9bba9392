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
