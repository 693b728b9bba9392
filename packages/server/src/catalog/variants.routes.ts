import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { ProductVariant } from './products.schemas.ts';
import { CreateVariantBody, UpdateVariantBody, VariantParams } from './variants.schemas.ts';
import { createVariant, deleteVariant, setVariantImage, updateVariant } from './variants.service.ts';

/** What the services these routes call need. */
type RouteDeps = Parameters<typeof createVariant>[0] &
  Parameters<typeof deleteVariant>[0] &
  Parameters<typeof setVariantImage>[0] &
  Parameters<typeof updateVariant>[0];

const WRITE = { scope: 'website.products' };
/** Bodies whose fields may be `{ present, value }` change-wrappers. */
const UPDATE = { ...WRITE, changeWrappers: true };
const tags = ['Variants'];

/** /1.1/commerce/products/{productId}/variants (and the /1.0 alias): PHYSICAL products only. */
export const variantsRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps; alias?: boolean }> = async (
  app,
  { deps, alias },
) => {
  const hide = alias ?? false;
  const digital405 =
    'A DIGITAL product answers 405 OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE, and so does a SERVICE or GIFT_CARD one, which only /v2/commerce/products serves.';

  app.post(
    '/:productId/variants',
    {
      config: WRITE,
      schema: {
        hide,
        tags,
        summary: 'Create a variant',
        description: `The product needs at least one variant attribute; at most 250 variants a product. ${digital405}`,
        params: Type.Object({ productId: Type.String() }),
        body: CreateVariantBody,
        response: { 201: ProductVariant, ...errorResponses(400, 401, 403, 404, 405, 409, 429) },
      },
    },
    async (request, reply) => {
      const variant = await createVariant(deps, websiteOf(request), request.params.productId, request.body);
      return reply.code(201).send(variant);
    },
  );

  app.post(
    '/:productId/variants/:variantId',
    {
      config: UPDATE,
      schema: {
        hide,
        tags,
        summary: 'Update a variant',
        description: `Partial update of sku, pricing, attributes and measurements, each (and each field inside pricing and measurements) plain or a {present, value} change-wrapper. Stock changes through inventory adjustments. ${digital405}`,
        params: VariantParams,
        body: UpdateVariantBody,
        response: { 200: ProductVariant, ...errorResponses(400, 401, 403, 404, 405, 409, 429) },
      },
    },
    async (request) => {
      const { productId, variantId } = request.params;
      return updateVariant(deps, websiteOf(request), productId, variantId, request.body);
    },
  );

  app.delete(
    '/:productId/variants/:variantId',
    {
      config: WRITE,
      schema: {
        hide,
        tags,
        summary: 'Delete a variant',
        description: `The last variant of a product cannot be deleted (409 INSUFFICIENT_PRODUCT_VARIANTS). ${digital405}`,
        params: VariantParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 405, 409, 429) },
      },
    },
    async (request, reply) => {
      const { productId, variantId } = request.params;
      await deleteVariant(deps, websiteOf(request), productId, variantId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:productId/variants/:variantId/image',
    {
      config: UPDATE,
      schema: {
        hide,
        tags,
        summary: 'Show an image on a variant',
        description: `One of the product's images, or null for none; plain or a {present, value} change-wrapper. ${digital405}`,
        params: VariantParams,
        body: Type.Object({ imageId: Type.Union([Type.String(), Type.Null()]) }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 405, 429) },
      },
    },
    async (request, reply) => {
      const { productId, variantId } = request.params;
      await setVariantImage(deps, websiteOf(request), productId, variantId, request.body.imageId);
      return reply.code(204).send(null);
    },
  );
};
