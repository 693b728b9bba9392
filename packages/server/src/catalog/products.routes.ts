import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendJson } from '../http/json-reply.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { websiteOf } from '../http/authenticate.ts';
import { listProducts, productsById } from './products.read.ts';
import {
  CreateProductBody,
  ListProductsQuery,
  Product,
  ProductIdParams,
  ProductIdsParams,
  ProductList,
  ProductsById,
  UpdateProductBody,
} from './products.schemas.ts';
import { createProduct, deleteProduct, updateProduct } from './products.service.ts';

/** What the services these routes call need, and what the handlers read themselves. */
type RouteDeps = Parameters<typeof createProduct>[0] &
  Parameters<typeof deleteProduct>[0] &
  Parameters<typeof listProducts>[0] &
  Parameters<typeof productsById>[0] &
  Parameters<typeof updateProduct>[0] & { baseUrl: string };

const READ = { scope: 'website.products.read' };
const WRITE = { scope: 'website.products' };
/** Update bodies: each field plain or a `{ present, value }` change-wrapper. */
const UPDATE = { ...WRITE, changeWrappers: true };
const tags = ['Products'];

/** /1.1/commerce/products (and the /1.0 alias): thin handlers, one service call each. */
export const productsRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps; alias?: boolean }> = async (
  app,
  { deps, alias },
) => {
  const hide = alias ?? false;

  app.get(
    '',
    {
      config: READ,
      schema: {
        hide,
        tags,
        summary: 'List products',
        description:
          'PHYSICAL and DIGITAL products (SERVICE and GIFT_CARD ones are served by /v2/commerce/products). ' +
          'At most 50 products a page, ordered by modifiedOn then id ascending, with cursor pagination. ' +
          'A change always sorts after every change already visible, and no two changes of a website share ' +
          'a modifiedOn: a client resuming with the cursor, with modifiedAfter set to the newest modifiedOn it ' +
          'has seen, or with a window ending at the present misses no change.',
        querystring: ListProductsQuery,
        response: { 200: ProductList, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const pageUrl = `${deps.baseUrl}${request.routeOptions.url}`;
      return sendJson(reply, await listProducts(deps, websiteOf(request), request.query, pageUrl));
    },
  );

  app.post(
    '',
    {
      config: WRITE,
      schema: {
        hide,
        tags,
        summary: 'Create a product',
        body: CreateProductBody,
        response: { 201: Product, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await createProduct(deps, websiteOf(request), request.body), 201),
  );

  app.get(
    '/:productIdCsvs',
    {
      config: READ,
      schema: {
        hide,
        tags,
        summary: 'Get products by id',
        params: ProductIdsParams,
        response: { 200: ProductsById, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    // Not async: a product read from memory is sent at once, without a promise to wait for.
    (request, reply) => {
      const body = productsById(deps, websiteOf(request), request.params.productIdCsvs);
      if (!Buffer.isBuffer(body)) return body.then((json) => void sendJson(reply, json));
      sendJson(reply, body);
    },
  );

  app.post(
    '/:productId',
    {
      config: UPDATE,
      schema: {
        hide,
        tags,
        summary: 'Update a product',
        description:
          'Partial update: fields left out are unchanged. Each field, and each field inside pricing, may be plain or a {present, value} change-wrapper; {present: false} leaves it unchanged.',
        params: ProductIdParams,
        body: UpdateProductBody,
        response: { 200: Product, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await updateProduct(deps, websiteOf(request), request.params.productId, request.body)),
  );

  app.delete(
    '/:productId',
    {
      config: WRITE,
      schema: {
        hide,
        tags,
        summary: 'Delete a product',
        params: ProductIdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await deleteProduct(deps, websiteOf(request), request.params.productId);
      return reply.code(204).send(null);
    },
  );
};
