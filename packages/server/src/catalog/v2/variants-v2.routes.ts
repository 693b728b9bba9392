import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { websiteOf } from '../../http/authenticate.ts';
import { errorResponses } from '../../http/common.schemas.ts';
import { CreateVariantV2Body, ProductVariantV2, UpdateVariantV2Body } from './products-v2.schemas.ts';
import { VariantParams } from '../variants.schemas.ts';
import { createVariant, deleteVariant, setVariantImage, updateVariant } from '../variants.service.ts';

/** What the services these routes call need. */
type RouteDeps = Parameters<typeof createVariant>[0] &
  Parameters<typeof deleteVariant>[0] &
  Parameters<typeof setVariantImage>[0] &
  Parameters<typeof updateVariant>[0];

const WRITE = { scope: 'website.products' };
/** Bodies whose fields may be `{ present, value }` change-wrappers. */
const UPDATE = { ...WRITE, changeWrappers: true };
const tags = ['Products v2'];
const API = 'v2';
const types =
  "A variant carries its product type's fields only (PHYSICAL: all; SERVICE: no shippingMeasurements, gtin or mpn; GIFT_CARD: sku and pricing.basePrice); another type's field is a 400. A DIGITAL product has no variants: 405.";

/** /v2/commerce/products/{productId}/variants: PHYSICAL, SERVICE and GIFT_CARD products. */
export const variantsV2Routes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.post(
    '/:productId/variants',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Create a variant',
        description: `PHYSICAL and SERVICE products need at least one variant attribute; at most 250 variants a product (409). ${types}`,
        params: Type.Object({ productId: Type.String() }),
        body: CreateVariantV2Body,
        response: { 201: ProductVariantV2, ...errorResponses(400, 401, 403, 404, 405, 409, 429) },
      },
    },
    async (request, reply) => {
      const variant = await createVariant(
        deps,
        websiteOf(request),
        request.params.productId,
        request.body,
        API,
      );
      return reply.code(201).send(variant);
    },
  );

  app.post(
    '/:productId/variants/:variantId',
    {
      config: UPDATE,
      schema: {
        tags,
        summary: 'Update a variant',
        description: `Partial update of sku, pricing, attributes, shippingMeasurements, gtin and mpn (null clears those two), each plain or a {present, value} change-wrapper. Stock changes through inventory adjustments. ${types}`,
        params: VariantParams,
        body: UpdateVariantV2Body,
        response: { 200: ProductVariantV2, ...errorResponses(400, 401, 403, 404, 405, 409, 429) },
      },
    },
    async (request) => {
      const { productId, variantId } = request.params;
      return updateVariant(deps, websiteOf(request), productId, variantId, request.body, API);
    },
  );

  app.delete(
    '/:productId/variants/:variantId',
    {
      config: WRITE,
      schema: {
        tags,
        summary: 'Delete a variant',
        description:
          'The only variant of a product cannot be deleted (409 INSUFFICIENT_PRODUCT_VARIANTS). A DIGITAL product: 405.',
        params: VariantParams,
        response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 405, 409, 429) },
      },
    },
    async (request, reply) => {
      const { productId, variantId } = request.params;
      await deleteVariant(deps, websiteOf(request), productId, variantId, API);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/:productId/variants/:variantId/image',
    {
      config: UPDATE,
      schema: {
        tags,
        summary: 'Show an image on a variant',
        description: "One of the product's images, or null for none. A DIGITAL product: 405.",
        params: VariantParams,
        body: Type.Object({ imageId: Type.Union([Type.String(), Type.Null()]) }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 405, 429) },
      },
    },
    async (request, reply) => {
      const { productId, variantId } = request.params;
      await setVariantImage(deps, websiteOf(request), productId, variantId, request.body.imageId, API);
      return reply.code(204).send(null);
    },
  );
};
