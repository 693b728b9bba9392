import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { PassThrough, type Readable } from 'node:stream';
import { MAX_DOWNLOAD_MB, uploadDigitalGood } from '../../catalog/digital-goods.ts';
import { DomainError, Forbidden, PayloadTooLarge, ValidationError } from '../../shared/errors.ts';
import { ownedSite, savedRedirect, sendEditPage, shownProduct } from './product-page.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';

const MAX_FILE_BYTES = MAX_DOWNLOAD_MB * 1024 * 1024;

/** The file part as a stream whose errors are the owner's: too large, or cut short. */
function fileStream(part: MultipartFile): Readable {
  const stream = new PassThrough();
  // The error may come before storage reads; it then finds it on the stream.
  stream.on('error', () => {});
  part.file.on('limit', () => {
    stream.destroy(new PayloadTooLarge(`The file is larger than ${MAX_DOWNLOAD_MB} MB.`));
    part.file.resume();
  });
  part.file.on('error', () => stream.destroy(new ValidationError('The upload was cut short.')));
  part.file.pipe(stream);
  return stream;
}

/**
 * A DIGITAL product's file on its page: one file, streamed to storage as it arrives (never held
 * whole), replacing the one before. The form's CSRF token comes before the file and is checked
 * before anything is stored.
 */
export const adminProductDownloadRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  await app.register(multipart);

  app.post('/sites/:websiteId/products/:productId/download', async (request, reply) => {
    const { site } = await ownedSite(deps, request);
    const { productId } = request.params as { productId: string };
    const product = await shownProduct(deps, site.id, productId);
    if (!request.isMultipart()) requireCsrf(deps, request);
    const checkToken = (csrf: unknown) =>
      requireCsrf(deps, { browser: request.browser, body: { csrf } } as FastifyRequest);
    let csrfChecked = false;
    let stored = false;
    let failure: DomainError | undefined;
    try {
      const parts = request.parts({
        limits: { fileSize: MAX_FILE_BYTES, files: 1, fields: 3, fieldSize: 4096 },
      });
      for await (const part of parts) {
        if (part.type === 'field') {
          if (part.fieldname === 'csrf' && !csrfChecked) {
            checkToken(part.value);
            csrfChecked = true;
          }
          continue;
        }
        if (!csrfChecked) checkToken(undefined);
        if (part.filename === '' || stored || failure) {
          part.file.resume();
          continue;
        }
        if (product.type !== 'DIGITAL') {
          part.file.resume();
          failure = new ValidationError('Only a download has a file to upload.');
          continue;
        }
        try {
          await uploadDigitalGood(deps.commerce, site.id, productId, {
            stream: fileStream(part),
            fileName: part.filename,
          });
          stored = true;
        } catch (error) {
          part.file.resume();
          if (!(error instanceof DomainError) || error.status === 404 || error.status >= 500) throw error;
          failure = error;
        }
      }
    } catch (error) {
      if (error instanceof Forbidden) throw error;
      if (error instanceof DomainError && (error.status === 404 || error.status >= 500)) throw error;
      if (error instanceof DomainError) failure ??= error;
      else if ((error as { statusCode?: number }).statusCode === 413) {
        failure ??= new PayloadTooLarge(`The file is larger than ${MAX_DOWNLOAD_MB} MB.`);
      } else if ((error as { statusCode?: number }).statusCode) {
        failure ??= new ValidationError('The upload was cut short; choose the file and try again.');
      } else throw error;
    }
    if (!csrfChecked) checkToken(undefined);
    if (!failure && !stored) failure = new ValidationError('Choose the file to sell first.');
    if (!failure) return savedRedirect(reply, site, productId, 'download');
    return sendEditPage(deps, request, reply, site, productId, {
      status: failure.status,
      // A product that is not a download has no file form: its page shows the refusal at the top.
      error: {
        form: product.type === 'DIGITAL' ? 'download' : 'page',
        field: '',
        message: failure.message.replace(/\.?$/, '.'),
        values: {},
      },
    });
  });
};
