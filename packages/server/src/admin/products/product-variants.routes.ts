import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  AdjustmentHeaders,
  AdjustmentsBody,
  type AdjustmentsInput,
} from '../../catalog/inventory/inventory.schemas.ts';
import { adjustInventory } from '../../catalog/inventory/inventory.service.ts';
import type { VariantInput } from '../../catalog/new-product.ts';
import { hasAttributes, STOCKED, type ProductType } from '../../catalog/product-types.ts';
import { CreateVariantV2Body, UpdateVariantV2Body } from '../../catalog/v2/products-v2.schemas.ts';
import {
  createVariant,
  deleteVariant,
  setVariantImage,
  updateVariant,
} from '../../catalog/variants.service.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { ValidationError } from '../../shared/errors.ts';
import { checkSchema, pricingOf, stockOf, valuesOf, type Values } from './product-form.ts';
import { physicalOf } from './variant-input.ts';
import { changeOrShow, ownedSite, shownProduct } from './product-page.ts';
import type { ShownProduct } from './products.views.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';

/**
 * A variant form's SKU, price, option values (`attr0`, `attr1`, ... in the product's order) and,
 * a PHYSICAL variant's, GTIN, MPN and shipping measurements: on a change each the form holds
 * (a blank clears it), on a new one what was typed.
 */
function variantFields(values: Values, product: ShownProduct, site: WebsitesTable, change: boolean) {
  const type = product.type as ProductType;
  const names = product.variantAttributes ?? [];
  return {
    sku: values.sku ?? '',
    pricing: pricingOf(values, '', site.currency, type === 'GIFT_CARD'),
    ...(hasAttributes(type) &&
      names.length > 0 && {
        attributes: Object.fromEntries(names.map((name, j) => [name, (values[`attr${j}`] ?? '').trim()])),
      }),
    ...(type === 'PHYSICAL' && physicalOf(values, '', site.measurement_standard, change)),
  };
}

/** The stock form as an inventory adjustment of one variant. */
function adjustment(values: Values, variantId: string): AdjustmentsInput {
  const text = (values.quantity ?? '').trim();
  // Anything but digits is left for the schema to refuse, naming the field.
  const quantity = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  switch (values.mode) {
    case 'set':
      return { setFiniteOperations: [{ variantId, quantity }] };
    case 'add':
      return { incrementOperations: [{ variantId, quantity }] };
    case 'remove':
      return { decrementOperations: [{ variantId, quantity }] };
    case 'unlimited':
      return { setUnlimitedOperations: [variantId] };
    default:
      throw new ValidationError('mode: choose how to change the stock');
  }
}

/**
 * A product's variants on its page: add one, change one, choose the image it shows, remove one,
 * adjust its stock. Each is the service call of the API's variant and inventory endpoints.
 */
export const adminProductVariantsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  const target = async (request: FastifyRequest) => {
    const { site, owner } = await ownedSite(deps, request);
    requireCsrf(deps, request);
    const { productId, variantId = '' } = request.params as { productId: string; variantId?: string };
    const product = await shownProduct(deps, site.id, productId);
    return { site, owner, productId, variantId, product, values: valuesOf(request.body) };
  };

  app.post('/sites/:websiteId/products/:productId/variants', async (request, reply) => {
    const { site, productId, product, values } = await target(request);
    return changeOrShow(deps, request, reply, { site, productId, key: 'new-variant' }, async () => {
      const input: VariantInput = variantFields(values, product, site, false);
      if (STOCKED.includes(product.type as ProductType)) input.stock = stockOf(values, '');
      checkSchema(CreateVariantV2Body, input);
      await createVariant(deps.commerce, site.id, productId, input, 'v2');
      return 'variant-added';
    });
  });

  app.post('/sites/:websiteId/products/:productId/variants/:variantId', async (request, reply) => {
    const { site, productId, variantId, product, values } = await target(request);
    const key = `variant-${variantId}`;
    return changeOrShow(deps, request, reply, { site, productId, key }, async () => {
      const changes = variantFields(values, product, site, true);
      checkSchema(UpdateVariantV2Body, changes);
      await updateVariant(deps.commerce, site.id, productId, variantId, changes, 'v2');
      return 'variant';
    });
  });

  app.post('/sites/:websiteId/products/:productId/variants/:variantId/image', async (request, reply) => {
    const { site, productId, variantId, values } = await target(request);
    const key = `variant-image-${variantId}`;
    return changeOrShow(deps, request, reply, { site, productId, key }, async () => {
      // The select's "None" is the API's null; the service checks the image is the product's.
      await setVariantImage(deps.commerce, site.id, productId, variantId, values.imageId || null, 'v2');
      return 'variant-image';
    });
  });

  app.post('/sites/:websiteId/products/:productId/variants/:variantId/delete', async (request, reply) => {
    const { site, productId, variantId } = await target(request);
    return changeOrShow(deps, request, reply, { site, productId, key: `variant-${variantId}` }, async () => {
      await deleteVariant(deps.commerce, site.id, productId, variantId, 'v2');
      return 'variant-removed';
    });
  });

  app.post('/sites/:websiteId/products/:productId/variants/:variantId/stock', async (request, reply) => {
    const { site, owner, productId, variantId, product, values } = await target(request);
    const key = `stock-${variantId}`;
    return changeOrShow(deps, request, reply, { site, productId, key }, async () => {
      // Only this product's variants: the adjustment itself would take any of the website's.
      if (!product.variants?.some((v) => v.id === variantId && v.stock)) {
        throw new ValidationError('This variant has no stock to adjust.');
      }
      const body = adjustment(values, variantId);
      checkSchema(AdjustmentsBody, body);
      const idempotencyKey = values.key ?? '';
      checkSchema(AdjustmentHeaders, { 'idempotency-key': idempotencyKey }, 'key');
      const caller = `owner:${owner.id}`;
      const outcome = await adjustInventory(
        deps.commerce,
        { websiteId: site.id, caller, key: idempotencyKey },
        body,
      );
      return outcome === 'replayed' ? 'stock-replayed' : 'stock';
    });
  });
};
