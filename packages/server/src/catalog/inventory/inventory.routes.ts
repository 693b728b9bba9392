import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../../http/authenticate.ts';
import { errorResponses } from '../../http/common.schemas.ts';
import { pagination } from '../../pagination/cursor.ts';
import {
  AdjustmentHeaders,
  AdjustmentsBody,
  InventoryById,
  InventoryPage,
  InventoryQuery,
  VariantIdsParams,
} from './inventory.schemas.ts';
import { adjustInventory, callerOf, inventoryOf, inventoryPage } from './inventory.service.ts';

/** What the services these routes call need, and what the handlers read themselves. */
type RouteDeps = Parameters<typeof adjustInventory>[0] &
  Parameters<typeof inventoryOf>[0] &
  Parameters<typeof inventoryPage>[0] & { baseUrl: string };

const READ = { scope: 'website.inventory.read' };
const WRITE = { scope: 'website.inventory' };
const tags = ['Inventory'];
const PATH = '/1.0/commerce/inventory';

/** /1.0/commerce/inventory: the stock of the variants of PHYSICAL and SERVICE products (api-details 7). */
export const inventoryRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    PATH,
    {
      config: READ,
      schema: {
        tags,
        summary: 'List the inventory',
        description: 'At most 50 variants a page, in a stable order, with cursor pagination.',
        querystring: InventoryQuery,
        response: { 200: InventoryPage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const page = await inventoryPage(deps, websiteOf(request), request.query.cursor || undefined);
      return { inventory: page.inventory, pagination: pagination(page.nextCursor, `${deps.baseUrl}${PATH}`) };
    },
  );

  app.get(
    `${PATH}/:variantIds`,
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get the inventory of variants by id',
        description: 'In the order asked. More than 50 ids: 400. Any id not found: 404.',
        params: VariantIdsParams,
        response: { 200: InventoryById, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const ids = request.params.variantIds.split(',').map((id) => id.trim());
      return { inventory: await inventoryOf(deps, websiteOf(request), ids) };
    },
  );

  app.post(
    `${PATH}/adjustments`,
    {
      config: { ...WRITE, idempotencyKey: true },
      schema: {
        tags,
        summary: 'Adjust the inventory',
        description:
          'At most 50 operations in all, each variant at most once; all apply or none (one transaction). ' +
          'A decrement below zero is a 409 INSUFFICIENT_STOCK; an increment or decrement of unlimited stock a 409 STOCK_NOT_TRACKED. ' +
          'The Idempotency-Key belongs to the API key or OAuth app that sends it and is kept 48 hours: ' +
          'the same key with the same body answers 204 again without applying twice; with another body, 400; ' +
          'while the first request with it is still running, 409 CONCURRENT_MODIFICATION. ' +
          'A refused adjustment (any 4xx) keeps nothing, the key included: correct it and send it again with the same key. ' +
          'Without the header the answer is a 400 with an RFC 7807 body (application/problem+json), as the platform sends.',
        headers: AdjustmentHeaders,
        body: AdjustmentsBody,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const websiteId = websiteOf(request);
      await adjustInventory(
        deps,
        { websiteId, caller: callerOf(request.credential!), key: request.headers['idempotency-key'] },
        request.body,
      );
      return reply.code(204).send(null);
    },
  );
};
