import type { FastifyPluginAsync } from 'fastify';
import { sendStorePage } from './layout.ts';
import { StorePageCache, withToken } from './page-cache.ts';
import { pageNumber, productPageAt, storeFront, storePageList } from './storefront.read.ts';
import type { StoreDeps } from './store-deps.ts';

/** Website ids are 24 hex characters (ids.ts); an address with anything else names no store. */
const WEBSITE_ID = { type: 'string', pattern: '^[0-9a-f]{24}$' } as const;

function params<K extends string>(...names: K[]) {
  const properties: Record<string, object> = {};
  for (const name of names) properties[name] = name === 'websiteId' ? WEBSITE_ID : { type: 'string' };
  return { type: 'object', properties, required: names } as const;
}

interface ProductParams {
  websiteId: string;
  storePageSlug: string;
  urlSlug: string;
}

/** The store's catalog pages: its front page, each store page's list, each product's page. */
export const storeRoutes: FastifyPluginAsync<{ deps: StoreDeps }> = async (app, { deps }) => {
  const read = { ...deps, pages: new StorePageCache() };

  app.get<{ Params: { websiteId: string } }>(
    '/:websiteId',
    { schema: { params: params('websiteId') } },
    async (request, reply) => sendStorePage(reply, 200, await storeFront(read, request.params.websiteId)),
  );

  app.get<{ Params: Omit<ProductParams, 'urlSlug'>; Querystring: { page?: string } }>(
    '/:websiteId/:storePageSlug',
    { schema: { params: params('websiteId', 'storePageSlug') } },
    async (request, reply) => {
      const { websiteId, storePageSlug } = request.params;
      const n = pageNumber(request.query.page);
      return sendStorePage(reply, 200, await storePageList(read, websiteId, storePageSlug, n));
    },
  );

  app.get<{ Params: ProductParams }>(
    '/:websiteId/:storePageSlug/p/:urlSlug',
    { schema: { params: params('websiteId', 'storePageSlug', 'urlSlug') } },
    async (request, reply) => {
      const { websiteId, storePageSlug, urlSlug } = request.params;
      const page = await productPageAt(read, websiteId, storePageSlug, urlSlug);
      return sendStorePage(reply, 200, withToken(page, request.storeCsrf));
    },
  );
};
