import type { ImagesTable } from '../../db/schema.ts';
import { NotFound } from '../../shared/errors.ts';
import type { ImageJobData, ImageJobHolder } from '../../jobs/queue.ts';
import { renderWidths, UndecodableImage } from '../../media/images.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { ImageDeps } from './images.service.ts';
import * as images from './images.repo.ts';
import { changeProduct } from '../product-changes.ts';

/*
 * The image pipeline's worker side: the job that renders an upload's widths, its end when its
 * retries are spent, and the requeue of images whose worker died (images.service.ts takes the
 * uploads and queues the jobs).
 */

/** What a worker processing images needs beside: where processing times are counted. */
export interface ImageWorkerDeps extends ImageDeps {
  metrics: Pick<Metrics, 'imageStarted'>;
}

/** Ends an image READY or ERROR, as a change of its product (availableFormats, modifiedOn). */
async function finish(deps: ImageDeps, image: ImagesTable, changes: Partial<ImagesTable>): Promise<void> {
  try {
    await changeProduct(deps, image.website_id, image.product_id, async (trx) => {
      await images.updateImage(trx, image.id, { ...changes, ...images.NO_HOLDER });
      return { result: undefined };
    });
  } catch (error) {
    if (!(error instanceof NotFound)) throw error; // the product was deleted meanwhile
  }
}

/**
 * The image job: every width, then READY; ERROR when the file cannot be decoded. Any other
 * failure throws, for a retry. Idempotent: a job handed out again after a crash redoes the files
 * (each written whole) and ends the same way; an image already finished, or gone, is left alone.
 * The image names its holder while PROCESSING, so that others can tell when that worker died.
 */
export async function processImage(
  deps: ImageWorkerDeps,
  { imageId }: ImageJobData,
  holder: ImageJobHolder,
): Promise<void> {
  const image = await images.claimImage(deps.db, imageId, holder);
  if (!image) return;
  const timed = deps.metrics.imageStarted();
  try {
    // A storage outage throws here or in a write: the job is retried, the image stays QUEUED.
    const original = await deps.storage.source(imageId, 'original');
    if (original === undefined) throw new UndecodableImage('the original is gone');
    const rendered = await renderWidths(original, image.format, (name, bytes) =>
      deps.storage.put(imageId, name, bytes),
    );
    await finish(deps, image, { status: 'READY', ...rendered });
    timed('ready');
  } catch (error) {
    if (!(error instanceof UndecodableImage)) {
      timed('retry');
      await images.releaseImage(deps.db, imageId, holder); // waiting for its retry
      throw error;
    }
    await finish(deps, image, { status: 'ERROR' });
    timed('error');
  }
}

/** The job will not be retried again (its retries failed, or its worker died on the last one). */
export async function imageFailed(deps: ImageDeps, { imageId }: ImageJobData): Promise<void> {
  const image = await images.findImageById(deps.db, imageId);
  if (image && image.status !== 'READY') await finish(deps, image, { status: 'ERROR' });
}

/**
 * Queues again the images whose worker died while processing them, and fails the jobs those
 * workers held so that they are handed out again after their retry delay, not after the job
 * timeout. Every process that works images runs it every few seconds.
 */
export async function requeueLostImages(deps: Pick<ImageDeps, 'db' | 'jobs'>): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    for (const image of await images.lostImages(trx)) {
      if (image.job_id !== null && image.job_attempt !== null) {
        await deps.jobs.failLostImageJob(trx, { jobId: image.job_id, attempt: image.job_attempt });
      }
      await images.requeueImage(trx, image.id);
    }
  });
}

/** What a worker does with image jobs. */
export function imageHandlers(deps: ImageWorkerDeps) {
  return {
    process: (data: ImageJobData, holder: ImageJobHolder) => processImage(deps, data, holder),
    failed: (data: ImageJobData) => imageFailed(deps, data),
  };
}
