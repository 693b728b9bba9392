import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses, Pagination } from '../http/common.schemas.ts';
import { pagination } from '../pagination/cursor.ts';
import { storePagesPage } from './store-pages.service.ts';

/** What the services these routes call need, and what the handlers read themselves. */
type RouteDeps = Parameters<typeof storePagesPage>[0] & { baseUrl: string };

const StorePage = Type.Object({
  id: Type.String(),
  title: Type.String(),
  urlSlug: Type.String({ description: "The page's path on the site" }),
  isEnabled: Type.Boolean(),
});

export const storePagesRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    '/1.0/commerce/store_pages',
    {
      config: { scope: 'website.products.read' },
      schema: {
        tags: ['Store pages'],
        summary: 'List store pages',
        querystring: Type.Object({ cursor: Type.Optional(Type.String()) }),
        response: {
          200: Type.Object({ storePages: Type.Array(StorePage), pagination: Pagination }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const { storePages, nextCursor } = await storePagesPage(
        deps,
        websiteOf(request),
        request.query.cursor || undefined,
      );
      return {
        storePages: storePages.map((p) => ({
          id: p.id,
          title: p.title,
          urlSlug: p.url_slug,
          isEnabled: p.is_enabled,
        })),
        pagination: pagination(nextCursor, `${deps.baseUrl}/1.0/commerce/store_pages`),
      };
    },
  );
};
