import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { PassThrough, type Readable } from 'node:stream';
import { AltTextBody } from '../../catalog/images/images.routes.ts';
import {
  deleteImage,
  MAX_UPLOAD_MB,
  moveImage,
  updateAltText,
  uploadImage,
} from '../../catalog/images/images.service.ts';
import { DomainError, Forbidden, PayloadTooLarge, ValidationError } from '../../shared/errors.ts';
import { checkSchema, valuesOf } from './product-form.ts';
import { changeOrShow, ownedSite, savedRedirect, sendEditPage, shownProduct } from './product-page.ts';
import { registerUploadScript } from './product-upload.script.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';

const MAX_FILE_BYTES = MAX_UPLOAD_MB * 1024 * 1024;
/** Files one upload form may carry. */
const MAX_FILES = 20;

/**
 * A file part as a stream whose errors are the owner's (too large, cut short), so the upload
 * service can tell them from its own; past the limit no more of it is stored.
 */
function fileStream(part: MultipartFile): Readable {
  const stream = new PassThrough();
  // The error may come before the service reads; it then finds it on the stream.
  stream.on('error', () => {});
  part.file.on('limit', () => {
    stream.destroy(new PayloadTooLarge(`file: larger than ${MAX_UPLOAD_MB} MB`));
    part.file.resume();
  });
  part.file.on('error', () => stream.destroy(new ValidationError('file: the upload was cut short')));
  part.file.pipe(stream);
  return stream;
}

/** The parser's own errors as the owner's: too many or too large files, or a broken body. */
function uploadError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if ((error as { statusCode?: number }).statusCode === 413) {
    return new PayloadTooLarge(`At most ${MAX_FILES} files of ${MAX_UPLOAD_MB} MB each at once.`);
  }
  return new ValidationError('The upload was cut short; choose the files and try again.');
}

/**
 * A product's images on its page: upload (one or more files, through the API's upload service
 * each), alt text, order, deletion.
 */
export const adminProductImagesRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  await app.register(multipart);
  registerUploadScript(app);

  app.post('/sites/:websiteId/products/:productId/images', async (request, reply) => {
    const { site } = await ownedSite(deps, request);
    const { productId } = request.params as { productId: string };
    await shownProduct(deps, site.id, productId);
    if (!request.isMultipart()) requireCsrf(deps, request);
    const checkToken = (csrf: unknown) =>
      requireCsrf(deps, { browser: request.browser, body: { csrf } } as FastifyRequest);
    let csrfChecked = false;
    let uploaded = 0;
    let failure: { status: number; message: string } | undefined;
    /** A failure of ours or a product gone meanwhile: answered as any page answers it. */
    let fatal: unknown;
    try {
      const parts = request.parts({
        limits: { fileSize: MAX_FILE_BYTES, files: MAX_FILES, fields: 5, fieldSize: 4096 },
      });
      for await (const part of parts) {
        if (part.type === 'field') {
          // The form's first field: nothing is stored before the token is checked (GR-2).
          if (part.fieldname === 'csrf' && !csrfChecked) {
            checkToken(part.value);
            csrfChecked = true;
          }
          continue;
        }
        if (!csrfChecked) checkToken(undefined);
        if (failure || part.filename === '') {
          part.file.resume();
          continue;
        }
        try {
          const file = { stream: fileStream(part), fileName: part.filename };
          await uploadImage(deps.commerce, site.id, productId, file, 'v2');
          uploaded++;
        } catch (error) {
          part.file.resume();
          if (!(error instanceof DomainError) || error.status === 404 || error.status >= 500) {
            fatal = error;
            break;
          }
          failure = {
            status: error.status,
            message: `${part.filename}: ${error.message.replace(/^file: /, '')}`,
          };
        }
      }
    } catch (error) {
      if (error instanceof Forbidden) throw error;
      failure ??= uploadError(error);
    }
    if (fatal) throw fatal;
    if (!csrfChecked) checkToken(undefined);
    if (!failure && uploaded === 0)
      failure = { status: 400, message: 'Choose one or more image files first.' };
    if (!failure) return savedRedirect(reply, site, productId, 'images');
    const before = uploaded ? ` ${uploaded} file(s) before it were uploaded.` : '';
    return sendEditPage(deps, request, reply, site, productId, {
      status: failure.status,
      error: {
        form: 'upload',
        field: '',
        message: failure.message.replace(/\.?$/, '.') + before,
        values: {},
      },
    });
  });

  const image = async (request: FastifyRequest) => {
    const { site } = await ownedSite(deps, request);
    requireCsrf(deps, request);
    const { productId, imageId } = request.params as { productId: string; imageId: string };
    return { site, productId, imageId, values: valuesOf(request.body) };
  };

  app.post('/sites/:websiteId/products/:productId/images/:imageId', async (request, reply) => {
    const { site, productId, imageId, values } = await image(request);
    return changeOrShow(deps, request, reply, { site, productId, key: `image-${imageId}` }, async () => {
      const body = { altText: (values.altText ?? '').trim() };
      checkSchema(AltTextBody, body);
      await updateAltText(deps.commerce, site.id, productId, imageId, body.altText, 'v2');
      return 'alt';
    });
  });

  app.post('/sites/:websiteId/products/:productId/images/:imageId/move', async (request, reply) => {
    const { site, productId, imageId, values } = await image(request);
    return changeOrShow(deps, request, reply, { site, productId, key: `image-${imageId}` }, async () => {
      const order = (await shownProduct(deps, site.id, productId)).images.map((i) => i.id);
      const at = order.indexOf(imageId);
      // The API moves an image after another (or first): up is after the one two places up.
      if (values.direction === 'up' && at > 0) {
        await moveImage(deps.commerce, site.id, productId, imageId, at >= 2 ? order[at - 2]! : null, 'v2');
      } else if (values.direction === 'down' && at >= 0 && at < order.length - 1) {
        await moveImage(deps.commerce, site.id, productId, imageId, order[at + 1]!, 'v2');
      } else {
        throw new ValidationError('direction: this image cannot move that way');
      }
      return 'moved';
    });
  });

  app.post('/sites/:websiteId/products/:productId/images/:imageId/delete', async (request, reply) => {
    const { site, productId, imageId } = await image(request);
    return changeOrShow(deps, request, reply, { site, productId, key: `image-${imageId}` }, async () => {
      await deleteImage(deps.commerce, site.id, productId, imageId, 'v2');
      return 'image-deleted';
    });
  });
};
