import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { fulfillmentOptions } from './fulfillment-options.ts';

const FulfillmentOptions = Type.Object({
  fulfillmentOptions: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      type: Type.Enum(['SHIPPING', 'PICKUP', 'LOCAL_DELIVERY']),
      availableServices: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
    }),
  ),
});

/**
 * `GET /v1/fulfillments/fulfillment-options` (platform-surface 2.7.7): what FREE_SHIPPING
 * templates may name. The platform names no scope for it; it serves discount writers, so it asks
 * for `website.discounts.read` (which `website.discounts` implies).
 */
export const fulfillmentOptionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/fulfillments/fulfillment-options',
    {
      config: { scope: 'website.discounts.read' },
      schema: {
        tags: ['Discounts'],
        summary: 'List fulfillment options',
        description:
          "The website's ways of delivering an order. Emporium's store has one: Standard Shipping, the flat " +
          'rate its checkout charges, with no carrier services.',
        response: { 200: FulfillmentOptions, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => ({ fulfillmentOptions: fulfillmentOptions(websiteOf(request)) }),
  );
};
