import { createProduct, deleteProduct, updateProduct } from '../catalog/products.service.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { OBJECT_ID } from '../shared/ids.ts';
import { fromMinorUnits, majorUnit } from '../shared/money.ts';
import { findWebsite } from '../sites/websites.repo.ts';
import type { Topic } from '../webhooks/topics.ts';
import type { TopicTrigger, TriggerDeps } from './trigger-kinds.ts';
import * as repo from './triggers.repo.ts';

/**
 * Products changed through the catalog's services, as the products API changes them. Updates and
 * deletes go through v2's rules, which serve every product type.
 */

const PRICE_MAJOR = 24;
const STOCK = 10;
/** What product.update adds to a name, and takes off again the next time. */
const UPDATED = ' (updated)';

async function productOf(deps: TriggerDeps, websiteId: string, productId: string | undefined) {
  if (productId === undefined) {
    const newest = await repo.newestProduct(deps.db, websiteId);
    if (!newest)
      throw new ValidationError(`website ${websiteId} has no product: trigger product.create first`);
    return newest;
  }
  const id = productId.toLowerCase();
  const product = OBJECT_ID.test(id) ? await repo.findProduct(deps.db, websiteId, id) : undefined;
  if (!product) throw new NotFound(`product not found: ${productId}`);
  return product;
}

export const PRODUCT_TRIGGERS = {
  'product.create': {
    options: ['name', 'sku'],
    async run(deps, websiteId, options) {
      const website = await findWebsite(deps.db, websiteId);
      if (!website) throw new NotFound(`website not found: ${websiteId}`);
      const storePageId = await repo.firstStorePage(deps.db, websiteId);
      if (!storePageId) throw new ValidationError(`website ${websiteId} has no store page for a product`);
      const sku = options.sku ?? `MUG-${deps.ids.objectId().slice(0, 8).toUpperCase()}`;
      const product = await createProduct(deps, websiteId, {
        type: 'PHYSICAL',
        storePageId,
        name: options.name ?? 'Enamel Camp Mug',
        description: '<p>A sturdy enamel mug for coffee by the fire.</p>',
        isVisible: true,
        variants: [
          {
            sku,
            pricing: {
              basePrice: fromMinorUnits(PRICE_MAJOR * majorUnit(website.currency), website.currency),
            },
            stock: { quantity: STOCK, unlimited: false },
          },
        ],
      });
      const { id } = JSON.parse(product.toString('utf8')) as { id: string };
      return { changed: { productId: id, sku }, data: { productId: id } };
    },
  },
  'product.update': {
    options: ['productId', 'name'],
    async run(deps, websiteId, options) {
      const product = await productOf(deps, websiteId, options.productId);
      const name =
        options.name ??
        (product.name.endsWith(UPDATED) ? product.name.slice(0, -UPDATED.length) : product.name + UPDATED);
      await updateProduct(deps, websiteId, product.id, { name }, 'v2');
      return { changed: { productId: product.id, name }, data: { productId: product.id } };
    },
  },
  'product.delete': {
    options: ['productId'],
    async run(deps, websiteId, options) {
      const product = await productOf(deps, websiteId, options.productId);
      await deleteProduct(deps, websiteId, product.id, 'v2');
      return { changed: { productId: product.id }, data: { productId: product.id } };
    },
  },
} satisfies Partial<Record<Topic, TopicTrigger>>;
