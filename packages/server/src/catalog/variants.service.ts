import type { VariantsTable } from '../db/schema.ts';
import { uniqueViolation } from '../db/database.ts';
import { Conflict, MethodNotAllowed, NotFound, ValidationError } from '../errors.ts';
import type { ProductsTable } from '../db/schema.ts';
import { getWebsite } from '../owner/websites.service.ts';
import type { WebsiteRow } from '../owner/websites.repo.ts';
import { changeProduct } from './product-changes.ts';
import {
  checkAttributes,
  measurementColumns,
  normalizeSku,
  pricingColumns,
  sameAttributes,
} from './product-rules.ts';
import * as images from './images.repo.ts';
import { toImage, toVariant } from './products.mapper.ts';
import * as repo from './products.repo.ts';
import type { CreateVariant, ProductVariantT } from './products.schemas.ts';
import type { CatalogDeps } from './products.service.ts';
import type { UpdateVariantInput } from './variants.schemas.ts';

/** Variants of one product, beyond which a create is refused (api-details 6). */
export const MAX_VARIANTS = 250;

/** A new variant's row; checks the fields that need no other variant to check. */
export function variantRow(
  input: CreateVariant,
  field: string,
  names: string[],
  website: WebsiteRow,
  productId: string,
  position: number,
  deps: Pick<CatalogDeps, 'clock' | 'ids'>,
): VariantsTable {
  const attributes = input.attributes ?? {};
  checkAttributes(attributes, names, `${field}attributes`);
  const stock = input.stock ?? {};
  return {
    id: deps.ids.uuid(),
    product_id: productId,
    website_id: website.id,
    position,
    sku: normalizeSku(input.sku, `${field}sku`),
    attributes,
    ...pricingColumns(input.pricing, website.currency, `${field}pricing`),
    stock_quantity: stock.quantity ?? 0,
    stock_unlimited: stock.unlimited ?? false,
    ...measurementColumns(input, website.measurement_standard, field),
    image_id: null,
    created_at: deps.clock.now(),
  };
}

function physicalOnly(product: ProductsTable): void {
  if (product.type !== 'PHYSICAL') {
    throw new MethodNotAllowed(
      'variants: DIGITAL products have no variants',
      [],
      'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );
  }
}

function skuTaken(sku: string): Conflict {
  return new Conflict(`sku: "${sku}" is used by another variant of this website`, 'SKU_UNAVAILABLE');
}

/** Two racing writes of one SKU: the loser's insert or update hits the unique key. */
async function mapSkuConflict<T>(sku: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (sku !== undefined && uniqueViolation(error) === 'variants_sku_key') throw skuTaken(sku);
    throw error;
  }
}

function checkNoTwin(attributes: Record<string, string>, names: string[], others: VariantsTable[]): void {
  const twin = others.find((v) => sameAttributes(v.attributes, attributes, names));
  if (twin) throw new ValidationError(`attributes: variant ${twin.id} has the same values`);
}

export async function createVariant(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  input: CreateVariant,
): Promise<ProductVariantT> {
  const website = await getWebsite(deps.db, websiteId);
  return mapSkuConflict(input.sku.trim(), () =>
    changeProduct(deps, websiteId, productId, async (trx, product) => {
      physicalOnly(product);
      const names = product.variant_attributes;
      if (names.length === 0) {
        throw new ValidationError(
          'variantAttributes: the product needs at least one variant attribute before a second variant; set its variantAttributes first',
        );
      }
      const variants = await repo.selectProductVariants(trx, product.id);
      if (variants.length >= MAX_VARIANTS) {
        throw new Conflict(
          `variants: a product has at most ${MAX_VARIANTS} variants`,
          'ENTITY_LIMIT_REACHED',
        );
      }
      const position = Math.max(-1, ...variants.map((v) => v.position)) + 1;
      const row = variantRow(input, '', names, website, product.id, position, deps);
      checkNoTwin(row.attributes, names, variants);
      if ((await repo.existingSkus(trx, websiteId, [row.sku])).size) throw skuTaken(row.sku);
      await repo.insertVariants(trx, [row]);
      return { result: toVariant(row) };
    }),
  );
}

/** Partial update of sku, pricing, attributes and measurements; stock is left to inventory. */
export async function updateVariant(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  variantId: string,
  changes: UpdateVariantInput,
): Promise<ProductVariantT> {
  const website = await getWebsite(deps.db, websiteId);
  const sku = changes.sku === undefined ? undefined : normalizeSku(changes.sku, 'sku');
  return mapSkuConflict(sku, () =>
    changeProduct(deps, websiteId, productId, async (trx, product) => {
      physicalOnly(product);
      const variants = await repo.selectProductVariants(trx, product.id);
      const variant = variants.find((v) => v.id === variantId);
      if (!variant) throw new NotFound(`variant not found: ${variantId}`);
      const set: Partial<VariantsTable> = {};
      if (sku !== undefined && sku !== variant.sku) {
        if ((await repo.existingSkus(trx, websiteId, [sku])).size) throw skuTaken(sku);
        set.sku = sku;
      }
      if (changes.pricing !== undefined) {
        Object.assign(set, pricingColumns(changes.pricing, website.currency, 'pricing'));
      }
      if (changes.attributes !== undefined) {
        const names = product.variant_attributes;
        checkAttributes(changes.attributes, names, 'attributes');
        checkNoTwin(
          changes.attributes,
          names,
          variants.filter((v) => v.id !== variant.id),
        );
        set.attributes = changes.attributes;
      }
      if (changes.measurements !== undefined || changes.shippingMeasurements !== undefined) {
        Object.assign(set, measurementColumns(changes, website.measurement_standard, ''));
      }
      if (Object.keys(set).length) await repo.updateVariant(trx, variant.id, set);
      const image = variant.image_id ? await images.findImageById(trx, variant.image_id) : undefined;
      return { result: toVariant({ ...variant, ...set }, image ? toImage(image, deps.baseUrl) : null) };
    }),
  );
}

export async function deleteVariant(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  variantId: string,
): Promise<void> {
  await changeProduct(deps, websiteId, productId, async (trx, product) => {
    physicalOnly(product);
    const variants = await repo.selectProductVariants(trx, product.id);
    if (!variants.some((v) => v.id === variantId)) throw new NotFound(`variant not found: ${variantId}`);
    if (variants.length === 1) {
      throw new Conflict(
        'variants: a PHYSICAL product keeps at least one variant; this is its last',
        'INSUFFICIENT_PRODUCT_VARIANTS',
      );
    }
    await repo.deleteVariant(trx, variantId);
    return { result: undefined };
  });
}

/** Shows one of the product's images on the variant, or none (null). */
export async function setVariantImage(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  variantId: string,
  imageId: string | null,
): Promise<void> {
  await changeProduct(deps, websiteId, productId, async (trx, product) => {
    physicalOnly(product);
    const variants = await repo.selectProductVariants(trx, product.id);
    if (!variants.some((v) => v.id === variantId)) throw new NotFound(`variant not found: ${variantId}`);
    if (imageId !== null && !(await images.findImage(trx, websiteId, productId, imageId))) {
      throw new ValidationError(`imageId: ${imageId} is not an image of this product`);
    }
    await repo.updateVariant(trx, variantId, { image_id: imageId });
    return { result: undefined };
  });
}
