import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../catalog/inventory/inventory.service.ts';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { sendJson } from '../http/json-reply.ts';
import { getOrder, listOrders } from './orders.read.ts';
import {
  CreatedOrder,
  CreateOrderBody,
  FulfillBody,
  ListOrdersQuery,
  Order,
  OrderHeaders,
  OrderIdParams,
  OrdersPage,
} from './orders.schemas.ts';
import { fulfillOrder, importOrder } from './orders.service.ts';

/** What the services these routes call need, and what the handlers read themselves. */
type RouteDeps = Parameters<typeof fulfillOrder>[0] &
  Parameters<typeof getOrder>[0] &
  Parameters<typeof importOrder>[0] &
  Parameters<typeof listOrders>[0] & { baseUrl: string };

const READ = { scope: 'website.orders.read' };
const WRITE = { scope: 'website.orders' };
const tags = ['Orders'];
const PATH = '/1.0/commerce/orders';

/** /1.0/commerce/orders (platform-surface 2.1). */
export const ordersRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    PATH,
    {
      config: READ,
      schema: {
        tags,
        summary: 'List orders',
        description:
          'At most 50 orders a page, newest change first, with cursor pagination. ' +
          'modifiedAfter and modifiedBefore go together (the window is after, up to and including before); ' +
          'paymentStates defaults to NOT_CHARGED,AUTHORIZED,PAID,REFUNDED. ' +
          'A cursor carries the filters of the first request and cannot be sent with any of them.',
        querystring: ListOrdersQuery,
        response: { 200: OrdersPage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) =>
      sendJson(reply, await listOrders(deps, websiteOf(request), request.query, `${deps.baseUrl}${PATH}`)),
  );

  app.get(
    `${PATH}/:id`,
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get an order',
        description: 'The bare Order. An id that is not 24 hex characters: 400; not found: 404.',
        params: OrderIdParams,
        response: { 200: Order, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => sendJson(reply, await getOrder(deps, websiteOf(request), request.params.id)),
  );

  app.post(
    PATH,
    {
      config: { ...WRITE, idempotencyKey: true },
      schema: {
        tags,
        summary: 'Import an order from another channel',
        description:
          'Creates an order with channel "external", numbered after the website\'s last, with its transaction ' +
          "document and the buyer's profile, and sends order.create. The sum of the lines must equal subtotal; " +
          'money is in the website currency. inventoryBehavior DEDUCT takes the lines from stock, all or none: ' +
          'a variant with too little stock is a 409 INSUFFICIENT_STOCK naming it. ' +
          'The Idempotency-Key belongs to the API key or OAuth app that sends it and is kept 48 hours: the same key ' +
          'with the same body answers with the same order, created once; with another body, 400; while the first ' +
          'request with it runs, 409 CONCURRENT_MODIFICATION. Without the header the answer is a 400 with an RFC 7807 ' +
          'body. API keys may import 100 orders a website and hour (ORDER_IMPORTS_PER_HOUR), then 429.',
        headers: OrderHeaders,
        body: CreateOrderBody,
        response: { 201: CreatedOrder, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const json = await importOrder(
        deps,
        {
          websiteId: websiteOf(request),
          caller: callerOf(request.credential!),
          key: request.headers['idempotency-key'],
        },
        request.body,
      );
      return sendJson(reply, json, 201);
    },
  );

  app.post(
    `${PATH}/:id/fulfillments`,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Fulfill an order',
        description:
          'Adds the shipments and marks the order FULFILLED, sending order.update with update FULFILLED. ' +
          'A FULFILLED order takes more shipments; a CANCELED one is a 400. While another request on the ' +
          'order runs, 409. With shouldSendNotification true the buyer is e-mailed a shipping notice with the ' +
          "shipments (see the store's e-mails: GET /_emporium/websites/{websiteId}/emails); otherwise none.",
        params: OrderIdParams,
        body: FulfillBody,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await fulfillOrder(deps, websiteOf(request), request.params.id, request.body);
      return reply.code(204).send(null);
    },
  );
};
