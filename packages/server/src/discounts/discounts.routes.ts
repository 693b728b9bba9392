import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import {
  DiscountBody,
  DiscountEnvelope,
  DiscountIdParams,
  DiscountPage,
  LIMITS,
  ListDiscountsQuery,
} from './discounts.schemas.ts';
import {
  createDiscount,
  deleteDiscount,
  getDiscount,
  listDiscounts,
  replaceDiscount,
} from './discounts.service.ts';

/** What the services these routes call need. */
type RouteDeps = Parameters<typeof createDiscount>[0] &
  Parameters<typeof deleteDiscount>[0] &
  Parameters<typeof getDiscount>[0] &
  Parameters<typeof listDiscounts>[0] &
  Parameters<typeof replaceDiscount>[0];

/** website.discounts implies it (shared/scopes.ts effectiveScopes). */
const READ = { scope: 'website.discounts.read' };
const WRITE = { scope: 'website.discounts' };
const tags = ['Discounts'];
const PATH = '/v1/commerce/discounts';

const RULES =
  'criteria ANY_ORDER and CART_TOTAL take FIXED_AMOUNT, PERCENTAGE or FREE_SHIPPING; PRODUCT takes FIXED_AMOUNT or ' +
  'PERCENTAGE; BUY_X_GET_Y takes BUY_X_GET_Y_FIXED_AMOUNT or BUY_X_GET_Y_PERCENTAGE; other pairings are a 400. ' +
  'Product ids must be products of this website. A promo code is unique in the website whatever its case (409 ' +
  `PROMO_CODE_CONFLICT). A website has at most ${LIMITS.discountsPerWebsite} discounts, ` +
  `${LIMITS.autoDiscountsPerWebsite} of them AUTO (409 ENTITY_LIMIT_REACHED). Money in the website currency, as ` +
  'strings or numbers.';

/** /v1/commerce/discounts (platform-surface 2.7). */
export const discountsRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    PATH,
    {
      config: READ,
      schema: {
        tags,
        summary: 'List discounts',
        description:
          'Offset paging: offset (default 0) and limit (1 to 1000, default 50); hasNextPage and hasPreviousPage say ' +
          'whether more lie after and before. sortBy CREATED_ON (default), PROMO_CODE or USES_COUNT, sortDirection ' +
          'DESCENDING (default) or ASCENDING, ties by id. Filters: search (name and promo code), status, and ' +
          'comma lists of criteria, template and trigger types; limitedUseOnly.',
        querystring: ListDiscountsQuery,
        response: { 200: DiscountPage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => listDiscounts(deps, websiteOf(request), request.query),
  );

  app.post(
    PATH,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Create a discount',
        description: `201 with { discount }. ${RULES}`,
        body: DiscountBody,
        response: { 201: DiscountEnvelope, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ discount: await createDiscount(deps, websiteOf(request), request.body) }),
  );

  app.get(
    `${PATH}/:discountId`,
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get a discount',
        description: 'Not found, or of another website: 404.',
        params: DiscountIdParams,
        response: { 200: DiscountEnvelope, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => ({ discount: await getDiscount(deps, websiteOf(request), request.params.discountId) }),
  );

  app.put(
    `${PATH}/:discountId`,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Replace a discount',
        description:
          'The whole discount is replaced: fields left out take their defaults. id, websiteId, numberOfUses, ' +
          `lastRedeemedAt and status are read-only and ignored if sent. ${RULES}`,
        params: DiscountIdParams,
        body: DiscountBody,
        response: { 200: DiscountEnvelope, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => ({
      discount: await replaceDiscount(deps, websiteOf(request), request.params.discountId, request.body),
    }),
  );

  app.delete(
    `${PATH}/:discountId`,
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Delete a discount',
        params: DiscountIdParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await deleteDiscount(deps, websiteOf(request), request.params.discountId);
      return reply.code(204).send(null);
    },
  );
};
