import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { ImageStorage } from '../media/storage.ts';
import { existingImageIds } from './images.repo.ts';

/** Files younger than this may belong to an upload whose transaction has not committed yet. */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
const BATCH = 500;

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
 * images' files were removed.
 */
export async function sweepOrphanImages(deps: {
  db: Db;
  storage: ImageStorage;
  clock: Clock;
}): Promise<number> {
  const cutoff = deps.clock.now().getTime() - ORPHAN_MIN_AGE_MS;
  const old = (await deps.storage.imageFolders()).filter((f) => f.modifiedAt.getTime() < cutoff);
  let removed = 0;
  for (let i = 0; i < old.length; i += BATCH) {
    const batch = old.slice(i, i + BATCH).map((f) => f.imageId);
    const owned = await existingImageIds(deps.db, batch);
    for (const imageId of batch.filter((id) => !owned.has(id))) {
      await deps.storage.remove(imageId);
      removed++;
    }
  }
  return removed;
}
