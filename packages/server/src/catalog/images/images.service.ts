import type { Readable } from 'node:stream';
import type { Db } from '../../db/database.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import type { ImageStatus } from '../../db/schema.ts';
import { Conflict, NotFound, ValidationError } from '../../shared/errors.ts';
import type { Jobs } from '../../jobs/queue.ts';
import { declaredSize, detectFormat, MAX_PIXELS } from '../../media/images.ts';
import type { ImageStorage } from '../../media/storage.ts';
import { keepHead } from '../../media/stream-head.ts';
import { removeFilesOf } from './image-sweep.ts';
import * as images from './images.repo.ts';
import { changeProduct } from '../product-changes.ts';
import { checkServed, notShown, SERVED, type ApiVersion } from '../product-types.ts';
import { toImage } from '../products.mapper.ts';
import type { ProductImageT } from '../products.schemas.ts';
import * as repo from '../products.repo.ts';
import type { CatalogDeps } from '../products.service.ts';

/** A product's images, beyond which an upload is refused (api-details 5). */
export const MAX_IMAGES = 100;
export const MAX_UPLOAD_MB = 20;
const MAX_ALT_TEXT = 1000;
const MAX_FILE_NAME = 255;

export interface ImageDeps extends CatalogDeps {
  storage: ImageStorage;
  jobs: Jobs;
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
          created_at: deps.clock.now(websiteId),
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
    // With the database lost, the image's row may have committed all the same: its file stays,
    // and the orphan sweep removes it an hour on if no row owns it.
    if (!isDatabaseUnavailable(error)) await removeFilesOf(deps.storage, [imageId]);
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
