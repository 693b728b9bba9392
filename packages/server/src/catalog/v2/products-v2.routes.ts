import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isDeepStrictEqual } from 'node:util';
import { Type } from 'typebox';
import { ValidationError } from '../../shared/errors.ts';
import { websiteOf } from '../../http/authenticate.ts';
import { errorResponses } from '../../http/common.schemas.ts';
import { sendJson } from '../../http/json-reply.ts';
import { imagesRoutes } from '../images/images.routes.ts';
import { listProducts, productsById } from '../products.read.ts';
import { ProductIdParams, ProductIdsParams } from '../products.schemas.ts';
import {
  CreateProductV2Body,
  ListProductsV2Query,
  ProductV2,
  ProductV2List,
  ProductsV2ById,
  UpdateProductV2Body,
} from './products-v2.schemas.ts';
import { createProduct, deleteProduct, updateProduct } from '../products.service.ts';
import { variantsV2Routes } from './variants-v2.routes.ts';

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
const tags = ['Products v2'];
const API = 'v2';

/**
 * One of two names for a field (v2's generated schema names `seoData` and
 * `productAttributeNames` what 1.1 and every response call `seoOptions` and `variantAttributes`:
 * platform-surface open question 1): either is taken, both only when they agree.
 */
function eitherName<T>(body: Record<string, unknown>, name: string, alias: string): T | undefined {
  const [value, other] = [body[name], body[alias]];
  if (value !== undefined && other !== undefined && !isDeepStrictEqual(value, other))
    throw new ValidationError(`${alias}: differs from ${name}; send one of them`);
  return (value !== undefined ? value : other) as T | undefined;
}

/** /v2/commerce/products: the types of 2.5.1 over the same store as 1.1 (product-types.ts). */
export const productsV2Routes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    '',
    {
      config: READ,
      schema: {
        tags,
        summary: 'List products',
        description:
          'Every type unless `type` names some. At most 50 a page, ordered by modifiedOn then id ascending, with cursor pagination (as 1.1: see its list).',
        querystring: ListProductsV2Query,
        response: { 200: ProductV2List, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const pageUrl = `${deps.baseUrl}${request.routeOptions.url}`;
      return sendJson(reply, await listProducts(deps, websiteOf(request), request.query, pageUrl, API));
    },
  );

  app.post(
    '',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Create a product',
        description:
          'PHYSICAL, SERVICE or GIFT_CARD, each with its own fields: a field of another type is a 400 naming both. DIGITAL: 405.',
        body: CreateProductV2Body,
        response: { 201: ProductV2, ...errorResponses(400, 401, 403, 405, 409, 429) },
      },
    },
    async (request, reply) => {
      const { seoData: _seoData, ...body } = request.body;
      const seoOptions = eitherName<typeof body.seoOptions>(request.body, 'seoOptions', 'seoData');
      const product = await createProduct(deps, websiteOf(request), { ...body, seoOptions }, API);
      return sendJson(reply, product, 201);
    },
  );

  app.get(
    '/:productIdCsvs',
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get products by id',
        params: ProductIdsParams,
        response: { 200: ProductsV2ById, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    // Not async, as 1.1's: a product read from memory is sent at once.
    (request, reply) => {
      const body = productsById(deps, websiteOf(request), request.params.productIdCsvs, API);
      if (!Buffer.isBuffer(body)) return body.then((json) => void sendJson(reply, json));
      sendJson(reply, body);
    },
  );

  app.post(
    '/:productId',
    {
      config: UPDATE,
      schema: {
        tags,
        summary: 'Update a product',
        description:
          'Partial update, each field plain or a {present, value} change-wrapper. productAttributeNames and seoData are accepted for variantAttributes and seoOptions. pricing is for DIGITAL products.',
        params: ProductIdParams,
        body: UpdateProductV2Body,
        response: { 200: ProductV2, ...errorResponses(400, 401, 403, 404, 405, 409, 429) },
      },
    },
    async (request, reply) => {
      const { seoData: _s, productAttributeNames: _p, ...changes } = request.body;
      const seoOptions = eitherName<typeof changes.seoOptions>(request.body, 'seoOptions', 'seoData');
      const variantAttributes = eitherName<string[]>(
        request.body,
        'variantAttributes',
        'productAttributeNames',
      );
      const sent: Record<string, string> = {};
      if (request.body.productAttributeNames !== undefined) sent.variantAttributes = 'productAttributeNames';
      const product = await updateProduct(
        deps,
        websiteOf(request),
        request.params.productId,
        {
          ...changes,
          ...(seoOptions !== undefined && { seoOptions }),
          ...(variantAttributes !== undefined && { variantAttributes }),
        },
        API,
        sent,
      );
      return sendJson(reply, product);
    },
  );

  app.delete(
    '/:productId',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Delete a product',
        description: 'With its variants and images. DIGITAL (download) products cannot be deleted here: 405.',
        params: ProductIdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 405, 429) },
      },
    },
    async (request, reply) => {
      await deleteProduct(deps, websiteOf(request), request.params.productId, API);
      return reply.code(204).send(null);
    },
  );

  await app.register(variantsV2Routes, { deps });
  await app.register(imagesRoutes, { deps, api: API });
};
