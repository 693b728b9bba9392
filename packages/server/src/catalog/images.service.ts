import type { Readable } from 'node:stream';
import type { Db } from '../db/database.ts';
import type { ImagesTable, ImageStatus } from '../db/schema.ts';
import { Conflict, NotFound, ValidationError } from '../errors.ts';
import type { Jobs, ImageJobData, ImageJobHolder } from '../jobs/queue.ts';
import { declaredSize, detectFormat, MAX_PIXELS, renderWidths, UndecodableImage } from '../media/images.ts';
import type { ImageStorage } from '../media/storage.ts';
import { keepHead } from '../media/stream-head.ts';
import { removeFilesOf } from './image-sweep.ts';
import type { Metrics } from '../metrics/metrics.ts';
import * as images from './images.repo.ts';
import { changeProduct } from './product-changes.ts';
import { checkServed, notShown, SERVED, type ApiVersion } from './product-types.ts';
import { toImage } from './products.mapper.ts';
import type { ProductImageT } from './products.schemas.ts';
import * as repo from './products.repo.ts';
import type { CatalogDeps } from './products.service.ts';

/** A product's images, beyond which an upload is refused (api-details 5). */
export const MAX_IMAGES = 100;
export const MAX_UPLOAD_MB = 20;
const MAX_ALT_TEXT = 1000;
const MAX_FILE_NAME = 255;

export interface ImageDeps extends CatalogDeps {
  storage: ImageStorage;
  jobs: Jobs;
}

/** What a worker processing images needs beside: where processing times are counted. */
export interface ImageWorkerDeps extends ImageDeps {
  metrics: Pick<Metrics, 'imageStarted'>;
}

/** The last path segment of a client's file name, whichever separator its system uses. */
function basename(fileName: string): string {
  return (fileName.split(/[\\/]/).pop() ?? '').trim().slice(0, MAX_FILE_NAME);
}

/**
 * The first bytes of an upload kept while it streams to storage: they hold the header of most
 * JPEGs and PNGs. A GIF or WebP, or a JPEG with larger metadata blocks, is read back instead.
 */
const HEAD_BYTES = 256 * 1024;

/** The size an upload declares, from its head when that tells, else from the stored file. */
async function uploadedSize(deps: ImageDeps, imageId: string, head: ReturnType<typeof keepHead>) {
  const size = await declaredSize(head.bytes());
  if (size || head.whole()) return size;
  const stored = await deps.storage.source(imageId, 'original');
  return stored === undefined ? undefined : declaredSize(stored);
}

/**
 * Stores the original durably, checks it is an image this API takes, then in one transaction
 * adds the image last and queues its processing: the answer (202) means neither can be lost.
 * Anything refused leaves no file behind.
 */
export async function uploadImage(
  deps: ImageDeps,
  websiteId: string,
  productId: string,
  /** The file; a stream past the size limit errors with PayloadTooLarge (http/multipart.ts). */
  upload: { stream: Readable; fileName: string },
  api: ApiVersion = '1.1',
): Promise<{ imageId: string }> {
  // Before reading megabytes: the product must be this website's, of a type the version serves.
  const type = await repo.productType(deps.db, websiteId, productId);
  try {
    if (!type) throw new NotFound(`product not found: ${productId}`);
    checkServed({ id: productId, type }, api);
  } catch (error) {
    upload.stream.resume();
    throw error;
  }
  const imageId = deps.ids.objectId();
  const head = keepHead(upload.stream, HEAD_BYTES);
  try {
    await deps.storage.put(imageId, 'original', head.stream);
    const format = detectFormat(head.bytes());
    if (!format) throw new ValidationError('file: not a JPEG, PNG, GIF or WebP image');
    const size = await uploadedSize(deps, imageId, head);
    if (!size) throw new ValidationError('file: the image cannot be read');
    if (size.width * size.height > MAX_PIXELS) {
      throw new ValidationError(`file: ${size.width}x${size.height} is over ${MAX_PIXELS / 1e6} megapixels`);
    }
    const fileName = basename(upload.fileName);
    await changeProduct(
      deps,
      websiteId,
      productId,
      async (trx) => {
        const count = await images.countImages(trx, productId);
        if (count >= MAX_IMAGES) {
          throw new Conflict(`images: a product has at most ${MAX_IMAGES} images`, 'IMAGE_LIMIT_REACHED');
        }
        await images.insertImage(trx, {
          id: imageId,
          product_id: productId,
          website_id: websiteId,
          position: count,
          alt_text: fileName.replace(/\.[^.]*$/, '').slice(0, MAX_ALT_TEXT),
          file_name: fileName,
          format,
          status: 'QUEUED',
          width: size.width,
          height: size.height,
          widths: [],
          created_at: deps.clock.now(),
        });
        await deps.jobs.enqueueImage(trx, { imageId });
        return { result: undefined };
      },
      api,
    );
  } catch (error) {
    // The rest of a body storage stopped reading (an outage) is read and dropped, so that the
    // answer reaches the client.
    upload.stream.resume();
    await removeFilesOf(deps.storage, [imageId]);
    throw error;
  }
  deps.jobs.wakeImageWorkers();
  return { imageId };
}

export async function imageStatus(
  deps: ImageDeps,
  websiteId: string,
  productId: string,
  imageId: string,
  api: ApiVersion = '1.1',
): Promise<{ id: string; status: ImageStatus }> {
  const image = await images.findImageStatus(deps.db, websiteId, productId, imageId);
  if (!image) throw new NotFound(`image not found: ${imageId}`);
  if (api !== 'v2') {
    const type = await repo.productType(deps.db, websiteId, productId);
    if (type && !SERVED[api].includes(type)) throw notShown(productId, type, api);
  }
  return image;
}

/** An image of the product, under the product's lock; 404 when it is not one. */
async function imageOf(trx: Db, websiteId: string, productId: string, imageId: string) {
  const image = await images.findImage(trx, websiteId, productId, imageId);
  if (!image) throw new NotFound(`image not found: ${imageId}`);
  return image;
}

export async function updateAltText(
  deps: ImageDeps,
  websiteId: string,
  productId: string,
  imageId: string,
  altText: string,
  api: ApiVersion = '1.1',
): Promise<ProductImageT> {
  return changeProduct(
    deps,
    websiteId,
    productId,
    async (trx) => {
      const image = await imageOf(trx, websiteId, productId, imageId);
      await images.updateImage(trx, imageId, { alt_text: altText });
      return { result: toImage({ ...image, alt_text: altText }, deps.baseUrl) };
    },
    api,
  );
}

/** Moves the image right after `afterImageId`, or first for null; the order stays dense. */
export async function moveImage(
  deps: ImageDeps,
  websiteId: string,
  productId: string,
  imageId: string,
  afterImageId: string | null,
  api: ApiVersion = '1.1',
): Promise<void> {
  await changeProduct(
    deps,
    websiteId,
    productId,
    async (trx) => {
      await imageOf(trx, websiteId, productId, imageId);
      const order = (await images.imageOrder(trx, productId)).filter((id) => id !== imageId);
      let at = 0;
      if (afterImageId !== null) {
        if (afterImageId === imageId)
          throw new ValidationError('afterImageId: an image cannot follow itself');
        at = order.indexOf(afterImageId) + 1;
        if (at === 0)
          throw new ValidationError(`afterImageId: ${afterImageId} is not an image of this product`);
      }
      order.splice(at, 0, imageId);
      await images.renumberImages(trx, order);
      return { result: undefined };
    },
    api,
  );
}

/** Deletes the image; variants that showed it show none. Its files go once the delete commits. */
export async function deleteImage(
  deps: ImageDeps,
  websiteId: string,
  productId: string,
  imageId: string,
  api: ApiVersion = '1.1',
): Promise<void> {
  await changeProduct(
    deps,
    websiteId,
    productId,
    async (trx) => {
      await imageOf(trx, websiteId, productId, imageId);
      await images.deleteImage(trx, imageId); // variants.image_id: ON DELETE SET NULL
      await images.renumberImages(trx, await images.imageOrder(trx, productId));
      return { result: undefined };
    },
    api,
  );
  await removeFilesOf(deps.storage, [imageId]);
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
