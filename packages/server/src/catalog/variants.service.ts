import type { Db } from '../db/database.ts';
import type { ProductsTable, VariantsTable } from '../db/schema.ts';
import { uniqueViolation } from '../db/database.ts';
import { Conflict, NotFound, ValidationError } from '../shared/errors.ts';
import { getWebsite } from '../sites/websites.service.ts';
import type { WebsiteRow } from '../sites/websites.repo.ts';
import { changeProduct } from './product-changes.ts';
import {
  checkAttributes,
  measurementColumns,
  normalizeSku,
  pricingColumns,
  sameAttributes,
} from './product-rules.ts';
import * as images from './images/images.repo.ts';
import type { VariantInput } from './new-product.ts';
import {
  checkHasVariants,
  checkVariantFields,
  hasAttributes,
  normalizeGtin,
  normalizeMpn,
  type ApiVersion,
  type VariantType,
} from './product-types.ts';
import { toImage, toVariant, type VariantRow } from './products.mapper.ts';
import { toVariantV2 } from './v2/products-v2.mapper.ts';
import * as repo from './products.repo.ts';
import type { ProductImageT, ProductVariantT } from './products.schemas.ts';
import type { ProductVariantV2T } from './v2/products-v2.schemas.ts';
import type { CatalogDeps } from './products.service.ts';
import type { UpdateVariantInput } from './variants.schemas.ts';

/** A variant update as any version sends it; `gtin` and `mpn` (null clears) come with v2. */
export type VariantChanges = UpdateVariantInput & { gtin?: string | null; mpn?: string | null };

/** Variants of one product, beyond which a create is refused (api-details 6). */
export const MAX_VARIANTS = 250;

/**
 * A new variant's row; checks the fields that need no other variant to check. What its type
 * lacks is stored as nothing: a gift card never runs out, and only a PHYSICAL variant is shipped.
 */
export function variantRow(
  input: VariantInput,
  type: VariantType,
  field: string,
  names: string[],
  website: WebsiteRow,
  productId: string,
  position: number,
  deps: Pick<CatalogDeps, 'clock' | 'ids'>,
): VariantsTable {
  const attributes = input.attributes ?? {};
  checkAttributes(attributes, names, `${field}attributes`);
  const stock = type === 'GIFT_CARD' ? { unlimited: true } : (input.stock ?? {});
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
    ...measurementColumns(type === 'PHYSICAL' ? input : {}, website.measurement_standard, field),
    image_id: null,
    gtin: normalizeGtin(input.gtin, `${field}gtin`),
    mpn: normalizeMpn(input.mpn, `${field}mpn`),
    created_at: deps.clock.now(website.id),
  };
}

/** A variant as a version sends it. */
export type VariantOf<A extends ApiVersion> = A extends 'v2' ? ProductVariantV2T : ProductVariantT;

function rendered<A extends ApiVersion>(
  api: A,
  row: VariantRow,
  type: VariantType,
  image: ProductImageT | null,
): VariantOf<A> {
  return (api === 'v2' ? toVariantV2(row, type, image) : toVariant(row, image)) as VariantOf<A>;
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

/** The product's variants and the one named, under the product's lock; 405 for a DIGITAL product. */
async function variantOf(trx: Db, product: ProductsTable, variantId: string) {
  checkHasVariants(product);
  const type = product.type;
  const variants = await repo.selectProductVariants(trx, product.id);
  const variant = variants.find((v) => v.id === variantId);
  if (!variant) throw new NotFound(`variant not found: ${variantId}`);
  return { variants, variant, type };
}

export async function createVariant<A extends ApiVersion = '1.1'>(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  input: VariantInput,
  api: A = '1.1' as A,
): Promise<VariantOf<A>> {
  const website = await getWebsite(deps.db, websiteId);
  return mapSkuConflict(input.sku.trim(), () =>
    changeProduct(
      deps,
      websiteId,
      productId,
      async (trx, product) => {
        checkHasVariants(product);
        checkVariantFields(product.type, input, '');
        const names = product.variant_attributes;
        if (hasAttributes(product.type) && names.length === 0) {
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
        const row = variantRow(input, product.type, '', names, website, product.id, position, deps);
        if (names.length) checkNoTwin(row.attributes, names, variants);
        if ((await repo.existingSkus(trx, websiteId, [row.sku])).size) throw skuTaken(row.sku);
        await repo.insertVariants(trx, [row]);
        return { result: rendered(api, row, product.type, null) };
      },
      api,
    ),
  );
}

/** Partial update of sku, pricing, attributes, measurements, GTIN and MPN; stock is left to inventory. */
export async function updateVariant<A extends ApiVersion = '1.1'>(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  variantId: string,
  changes: VariantChanges,
  api: A = '1.1' as A,
): Promise<VariantOf<A>> {
  const website = await getWebsite(deps.db, websiteId);
  const sku = changes.sku === undefined ? undefined : normalizeSku(changes.sku, 'sku');
  return mapSkuConflict(sku, () =>
    changeProduct(
      deps,
      websiteId,
      productId,
      async (trx, product) => {
        const { variants, variant, type } = await variantOf(trx, product, variantId);
        checkVariantFields(type, changes, '');
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
        if (changes.gtin !== undefined) set.gtin = normalizeGtin(changes.gtin, 'gtin');
        if (changes.mpn !== undefined) set.mpn = normalizeMpn(changes.mpn, 'mpn');
        if (Object.keys(set).length) await repo.updateVariant(trx, variant.id, set);
        const image = variant.image_id ? await images.findImageById(trx, variant.image_id) : undefined;
        const shown = image ? toImage(image, deps.baseUrl) : null;
        return { result: rendered(api, { ...variant, ...set }, type, shown) };
      },
      api,
    ),
  );
}

export async function deleteVariant(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  variantId: string,
  api: ApiVersion = '1.1',
): Promise<void> {
  await changeProduct(
    deps,
    websiteId,
    productId,
    async (trx, product) => {
      const { variants } = await variantOf(trx, product, variantId);
      if (variants.length === 1) {
        throw new Conflict(
          `variants: the only variant of a product cannot be deleted; this ${product.type} product keeps at least one`,
          'INSUFFICIENT_PRODUCT_VARIANTS',
        );
      }
      await repo.deleteVariant(trx, variantId);
      return { result: undefined };
    },
    api,
  );
}

/** Shows one of the product's images on the variant, or none (null). */
export async function setVariantImage(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  variantId: string,
  imageId: string | null,
  api: ApiVersion = '1.1',
): Promise<void> {
  await changeProduct(
    deps,
    websiteId,
    productId,
    async (trx, product) => {
      await variantOf(trx, product, variantId);
      if (imageId !== null && !(await images.findImage(trx, websiteId, productId, imageId))) {
        throw new ValidationError(`imageId: ${imageId} is not an image of this product`);
      }
      await repo.updateVariant(trx, variantId, { image_id: imageId });
      return { result: undefined };
    },
    api,
  );
}
