import type { Readable } from 'node:stream';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { ImageStorage } from '../media/storage.ts';
import { ValidationError } from '../shared/errors.ts';
import { changeProduct } from './product-changes.ts';
import type { CatalogDeps } from './products.service.ts';

/**
 * A DIGITAL product's file (its `digitalGood`, `{id, filename}`): what a buyer downloads. Kept in
 * the image storage's `downloads` folder (DATA_DIR/images/downloads, or `downloads/` under the
 * bucket's prefix), by its id, as `original`: the image sweep lists image ids only, so it never
 * sees these. Only the owner's page uploads one; the API reads `digitalGood` and cannot set it.
 */

/** The largest file a download may be: the platform's own limit for a digital product's file. */
export const MAX_DOWNLOAD_MB = 300;
export const DOWNLOAD_FILE = 'original';
const MAX_FILE_NAME = 255;

export type DownloadDeps = CatalogDeps & { storage: ImageStorage };

/** Where download files live, apart from the images. */
export const downloadStorage = (storage: ImageStorage): ImageStorage => storage.within('downloads');

/**
 * The file name as the buyer gets it: the last segment of the client's name, without control
 * characters, at most 255 characters; "download" when nothing is left.
 */
export function downloadName(fileName: string): string {
  const base = (fileName.split(/[\\/]/).pop() ?? '')
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, MAX_FILE_NAME);
  return base === '' || base === '.' || base === '..' ? 'download' : base;
}

/** Removes a download's file after the change that dropped it committed; a failure leaves it. */
export async function removeDownloadFile(storage: ImageStorage, id: string | undefined): Promise<void> {
  if (!id) return;
  // A file left by a storage outage costs space, never a sale: the row no longer names it.
  await downloadStorage(storage)
    .remove(id)
    .catch(() => {});
}

/**
 * Stores the file (streamed: never whole in memory), then sets it as the product's digitalGood
 * in a product change (modifiedOn, product.update, the sync feeds, as any edit). The file it
 * replaces is removed once that commits; a refused or failed upload leaves no file behind.
 */
export async function uploadDigitalGood(
  deps: DownloadDeps,
  websiteId: string,
  productId: string,
  /** The file; a stream past the size limit errors with PayloadTooLarge. */
  upload: { stream: Readable; fileName: string },
): Promise<{ id: string; filename: string }> {
  const storage = downloadStorage(deps.storage);
  const good = { id: deps.ids.objectId(), filename: downloadName(upload.fileName) };
  let replaced: string | undefined;
  try {
    await storage.put(good.id, DOWNLOAD_FILE, upload.stream);
    await changeProduct(
      deps,
      websiteId,
      productId,
      async (_trx, product) => {
        if (product.type !== 'DIGITAL') {
          throw new ValidationError('file: only a digital product has a file to download');
        }
        replaced = product.digital_good?.id;
        return { set: { digital_good: good }, result: undefined };
      },
      '1.1',
    );
  } catch (error) {
    upload.stream.resume();
    // With the database lost the change may have committed: the file then stays where it is named.
    if (!isDatabaseUnavailable(error)) await storage.remove(good.id).catch(() => {});
    throw error;
  }
  await removeDownloadFile(deps.storage, replaced);
  return good;
}

/** The download's bytes and size, or undefined when its file is gone. */
export function openDownload(storage: ImageStorage, id: string) {
  return downloadStorage(storage).open(id, DOWNLOAD_FILE);
}
