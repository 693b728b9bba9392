import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../../http/authenticate.ts';
import { errorResponses } from '../../http/common.schemas.ts';
import { filePart } from '../../http/multipart.ts';
import {
  deleteImage,
  imageStatus,
  MAX_UPLOAD_MB,
  moveImage,
  updateAltText,
  uploadImage,
} from './images.service.ts';
import type { ApiVersion } from '../product-types.ts';
import { ProductImage } from '../products.schemas.ts';

/** What the services these routes call need. */
type RouteDeps = Parameters<typeof deleteImage>[0] &
  Parameters<typeof imageStatus>[0] &
  Parameters<typeof moveImage>[0] &
  Parameters<typeof updateAltText>[0] &
  Parameters<typeof uploadImage>[0];

const READ = { scope: 'website.products.read' };
const WRITE = { scope: 'website.products' };
/** Bodies whose fields may be `{ present, value }` change-wrappers. */
const UPDATE = { ...WRITE, changeWrappers: true };

const ImageParams = Type.Object({ productId: Type.String(), imageId: Type.String() });
/** An alt text change, here and on the owner's product pages. */
export const AltTextBody = Type.Object({ altText: Type.String({ maxLength: 1000 }) });

/** /1.1/commerce/products/{productId}/images (and the /1.0 alias), and v2's, which are the same. */
export const imagesRoutes: FastifyPluginAsyncTypebox<{
  deps: RouteDeps;
  alias?: boolean;
  api?: ApiVersion;
}> = async (app, { deps, alias, api = '1.1' }) => {
  const hide = alias ?? false;
  const tags = [api === 'v2' ? 'Products v2' : 'Images'];
  // Streams the file part to storage (http/multipart.ts holds the limits).
  await app.register(multipart);
  // Any other body reaches the handler, which answers 400 INVALID_CONTENT_TYPE (api-details 5).
  app.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume();
    done(null, undefined);
  });

  app.post(
    '/:productId/images',
    {
      config: WRITE,
      schema: {
        hide,
        tags,
        summary: 'Upload an image',
        description:
          'multipart/form-data with the file in a part named `file`: JPEG, PNG, GIF or WebP (decided from the bytes), at most 20 MB and 60 megapixels, 100 images a product. Answers 202 once the original is stored and its processing queued; follow the status endpoint.',
        params: Type.Object({ productId: Type.String() }),
        consumes: ['multipart/form-data'],
        response: {
          202: Type.Object({ imageId: Type.String() }),
          ...errorResponses(400, 401, 403, 404, 409, 413, 429),
        },
      },
    },
    async (request, reply) => {
      const part = await filePart(request, 'file', MAX_UPLOAD_MB * 1024 * 1024);
      const result = await uploadImage(deps, websiteOf(request), request.params.productId, part, api);
      return reply.code(202).send(result);
    },
  );

  app.get(
    '/:productId/images/:imageId/status',
    {
      config: READ,
      schema: {
        hide,
        tags,
        summary: 'Processing status of an image',
        description:
          'QUEUED (stored, waiting), PROCESSING (a worker holds it), READY (every width written) or ERROR (undecodable, or failed after retries).',
        params: ImageParams,
        response: {
          200: Type.Object({
            id: Type.String(),
            status: Type.Union([
              Type.Literal('QUEUED'),
              Type.Literal('PROCESSING'),
              Type.Literal('READY'),
              Type.Literal('ERROR'),
            ]),
          }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const { productId, imageId } = request.params;
      return imageStatus(deps, websiteOf(request), productId, imageId, api);
    },
  );

  app.post(
    '/:productId/images/:imageId',
    {
      config: UPDATE,
      schema: {
        hide,
        tags,
        summary: "Change an image's alt text",
        params: ImageParams,
        description: 'altText plain or a {present, value} change-wrapper.',
        body: AltTextBody,
        response: { 200: ProductImage, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { productId, imageId } = request.params;
      return updateAltText(deps, websiteOf(request), productId, imageId, request.body.altText, api);
    },
  );

  app.post(
    '/:productId/images/:imageId/order',
    {
      config: UPDATE,
      schema: {
        hide,
        tags,
        summary: 'Move an image',
        description:
          'Right after `afterImageId`, or first with null (plain or a {present, value} change-wrapper); orderIndex stays dense.',
        params: ImageParams,
        body: Type.Object({ afterImageId: Type.Union([Type.String(), Type.Null()]) }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { productId, imageId } = request.params;
      await moveImage(deps, websiteOf(request), productId, imageId, request.body.afterImageId, api);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/:productId/images/:imageId',
    {
      config: WRITE,
      schema: {
        hide,
        tags,
        summary: 'Delete an image',
        description: 'Variants that showed it show no image; its files are removed.',
        params: ImageParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const { productId, imageId } = request.params;
      await deleteImage(deps, websiteOf(request), productId, imageId, api);
      return reply.code(204).send(null);
    },
  );
};
