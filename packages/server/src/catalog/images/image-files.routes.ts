import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NotFound } from '../../shared/errors.ts';
import { errorResponses } from '../../http/common.schemas.ts';
import { CONTENT_TYPES } from '../../media/images.ts';
import { findImageById } from './images.repo.ts';
import type { ImageStorage } from '../../media/storage.ts';
import type { Db } from '../../db/database.ts';

/** What the handlers read: the image rows and the stored files. */
type RouteDeps = { db: Db; storage: ImageStorage };

/**
 * GET {image url}[?format=500w]: public, like a CDN (api-details 5). A file never changes under
 * its name, so it is cached forever and its ETag is its name.
 */
export const imageFilesRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    '/images/:imageId',
    {
      schema: {
        tags: ['Images'],
        summary: 'An image file',
        description: "The original, or with `format` one of the image's `availableFormats`.",
        security: [],
        params: Type.Object({ imageId: Type.String() }),
        querystring: Type.Object({ format: Type.Optional(Type.String()) }),
        response: { 200: Type.Unknown(), 304: Type.Null(), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { imageId } = request.params;
      const { format } = request.query;
      const image = await findImageById(deps.db, imageId);
      const name = format === undefined ? 'original' : format;
      if (!image || (format !== undefined && !image.widths.map((w) => `${w}w`).includes(format))) {
        throw new NotFound(
          `image not found: ${imageId}${format === undefined ? '' : ` in format ${format}`}`,
        );
      }
      const etag = `"${imageId}-${name}"`;
      reply.header('etag', etag).header('cache-control', 'public, max-age=31536000, immutable');
      if (request.headers['if-none-match']?.split(/\s*,\s*/).includes(etag))
        return reply.code(304).send(null);
      const file = await deps.storage.open(imageId, name);
      if (!file) throw new NotFound(`image not found: ${imageId}`);
      reply.type(CONTENT_TYPES[image.format]).header('content-length', file.size);
      // A HEAD answers the headers alone: Fastify would read the whole file to throw it away. An
      // empty stream, not an empty body, so that content-length stays the file's.
      if (request.method === 'HEAD') {
        file.stream.destroy();
        return reply.send(Readable.from([]));
      }
      return reply.send(file.stream);
    },
  );
};
