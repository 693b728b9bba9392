import type pg from 'pg';
import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../db/database.ts';
import { oneAtATime } from '../../db/one-at-a-time.ts';
import type { ImageStorage } from '../../media/storage.ts';
import { existingImageIds } from './images.repo.ts';

/** Files younger than this may belong to an upload whose transaction has not committed yet. */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
const BATCH = 500;
/** The sweep's lock (db/one-at-a-time.ts). */
export const IMAGE_SWEEP = 1;

/**
 * Removes the files of images whose rows are gone (or were never committed). A storage that fails
 * meanwhile leaves them to the sweep below: the change that removed the rows has committed, and
 * is not reported as failed for files nobody can reach any more.
 */
export async function removeFilesOf(storage: ImageStorage, imageIds: readonly string[]): Promise<void> {
  for (const imageId of imageIds) {
    try {
      await storage.remove(imageId);
    } catch {
      // the sweep removes them once they are ORPHAN_MIN_AGE_MS old
    }
  }
}

/**
 * Removes image files that no image row owns: left by a crash between storing an upload and
 * committing it, or by an image added while its product was being deleted. Returns how many
 * images' files were removed, or undefined when another process is sweeping: one at a time is
 * enough, and spares the store's listing being read by every instance each hour.
 */
export async function sweepOrphanImages(deps: {
  db: Db;
  pool: pg.Pool;
  storage: ImageStorage;
  clock: Clock;
}): Promise<number | undefined> {
  return oneAtATime(deps.pool, IMAGE_SWEEP, async () => {
    const cutoff = deps.clock.now().getTime() - ORPHAN_MIN_AGE_MS;
    let removed = 0;
    let batch: string[] = [];
    const removeOrphans = async () => {
      const owned = await existingImageIds(deps.db, batch);
      for (const imageId of batch.filter((id) => !owned.has(id))) {
        await deps.storage.remove(imageId);
        removed++;
      }
      batch = [];
    };
    for await (const folder of deps.storage.imageFolders()) {
      if (folder.modifiedAt.getTime() >= cutoff) continue;
      batch.push(folder.imageId);
      if (batch.length === BATCH) await removeOrphans();
    }
    if (batch.length > 0) await removeOrphans();
    return removed;
  });
}
