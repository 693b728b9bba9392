import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ImagesTable, ImageStatus } from '../../db/schema.ts';
import type { ImageJobHolder } from '../../jobs/queue.ts';
import { workerGone } from '../../jobs/worker-lock.ts';

/** SQL for product images; nothing else touches the images table. */

/** The columns of a PROCESSING image's holder, cleared when it is no longer held. */
export const NO_HOLDER = { worker_id: null, job_id: null, job_attempt: null };

export async function countImages(db: Db, productId: string): Promise<number> {
  const row = await db
    .selectFrom('images')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('product_id', '=', productId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A new image has no holder. */
export async function insertImage(
  db: Db,
  row: Omit<ImagesTable, 'worker_id' | 'job_id' | 'job_attempt'>,
): Promise<void> {
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

/**
 * The status as it is: PROCESSING while the worker that holds the image lives, QUEUED once it is
 * known to have died (its job is then, or soon, handed out again).
 */
export function findImageStatus(
  db: Db,
  websiteId: string,
  productId: string,
  imageId: string,
): Promise<{ id: string; status: ImageStatus } | undefined> {
  const workerId = sql.ref<number | null>('worker_id');
  return db
    .selectFrom('images')
    .select([
      'id',
      // The holder's lock is looked up only for an image being processed, where it names one.
      sql<ImageStatus>`CASE WHEN status <> 'PROCESSING' OR worker_id IS NULL THEN status
                            WHEN ${workerGone(workerId)} THEN 'QUEUED' ELSE status END`.as('status'),
    ])
    .where('website_id', '=', websiteId)
    .where('product_id', '=', productId)
    .where('id', '=', imageId)
    .executeTakeFirst();
}

/** The image, now PROCESSING by `holder`; undefined when it is finished (READY, ERROR) or gone. */
export function claimImage(
  db: Db,
  imageId: string,
  holder: ImageJobHolder,
): Promise<ImagesTable | undefined> {
  return db
    .updateTable('images')
    .set({
      status: 'PROCESSING',
      worker_id: holder.workerId,
      job_id: holder.jobId,
      job_attempt: holder.attempt,
    })
    .where('id', '=', imageId)
    .where('status', 'in', ['QUEUED', 'PROCESSING'])
    .returningAll()
    .executeTakeFirst();
}

/** Back to QUEUED for a retry, unless another hand-out of its job has taken it since. */
export async function releaseImage(db: Db, imageId: string, holder: ImageJobHolder): Promise<void> {
  await db
    .updateTable('images')
    .set({ status: 'QUEUED', ...NO_HOLDER })
    .where('id', '=', imageId)
    .where('status', '=', 'PROCESSING')
    .where('worker_id', '=', holder.workerId)
    .where('job_attempt', '=', holder.attempt)
    .execute();
}

/**
 * The images whose worker died while processing them, locked until the caller's transaction
 * ends; those another process is queuing again are skipped.
 */
export function lostImages(trx: Db): Promise<Pick<ImagesTable, 'id' | 'job_id' | 'job_attempt'>[]> {
  return trx
    .selectFrom('images')
    .select(['id', 'job_id', 'job_attempt'])
    .where('status', '=', 'PROCESSING')
    .where('worker_id', 'is not', null)
    .where(workerGone(sql.ref<number | null>('worker_id')))
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function requeueImage(trx: Db, imageId: string): Promise<void> {
  await trx
    .updateTable('images')
    .set({ status: 'QUEUED', ...NO_HOLDER })
    .where('id', '=', imageId)
    .execute();
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
