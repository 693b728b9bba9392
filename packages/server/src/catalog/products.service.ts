import type { Clock } from '../shared/clock.ts';
import { stampRows } from '../db/change-clock.ts';
import { uniqueViolation, type Db } from '../db/database.ts';
import type { ProductsTable, VariantsTable } from '../db/schema.ts';
import { Conflict, NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import type { Jobs } from '../jobs/queue.ts';
import { emit } from '../webhooks/outbox.ts';
import { GONE } from '../shared/versioned-cache.ts';
import { getWebsite } from '../sites/websites.service.ts';
import { descriptionText, sanitizeDescription } from './description.ts';
import { checkNewProduct, variantRows, type ProductInput } from './new-product.ts';
import {
  checkUniqueCombinations,
  checkVariantAttributeNames,
  normalizeUrlSlug,
  pricingColumns,
  searchText,
} from './product-rules.ts';
import {
  checkCreateOrDelete,
  checkProductFields,
  hasAttributes,
  hasVariants,
  type ApiVersion,
} from './product-types.ts';
import type { ImageStorage } from '../media/storage.ts';
import { removeFilesOf } from './images/image-sweep.ts';
import { removeDownloadFile } from './digital-goods.ts';
import * as images from './images/images.repo.ts';
import { changeProduct } from './product-changes.ts';
import { getProduct, type ProductJson } from './products.read.ts';
import * as repo from './products.repo.ts';
import type { ListCache } from './list-cache.ts';
import type { ProductDocuments } from './product-documents.ts';
import type { UpdateProductInput } from './products.schemas.ts';
import { slugify, firstFreeSlug } from '../shared/slug.ts';
import { findStorePage } from '../sites/store-pages.repo.ts';

export interface CatalogDeps extends repo.Reader {
  clock: Clock;
  ids: Ids;
  baseUrl: string;
  documents: ProductDocuments;
  lists: ListCache;
  /** Where webhook notifications of catalog changes are queued. */
  jobs: Jobs;
}

const MAX_SLUG_ATTEMPTS = 50;

function seo(value: ProductInput['seoOptions']): ProductsTable['seo_options'] {
  return value ? { title: value.title ?? null, description: value.description ?? null } : null;
}

/** Creates a product with its variants, all checks passing or nothing written (api-details 4). */
export async function createProduct(
  deps: CatalogDeps,
  websiteId: string,
  input: ProductInput,
  api: ApiVersion = '1.1',
): Promise<ProductJson> {
  checkCreateOrDelete({ id: 'new', type: input.type }, api);
  const website = await getWebsite(deps.db, websiteId);
  const storePage = await findStorePage(deps.db, websiteId, input.storePageId);
  if (!storePage)
    throw new ValidationError(`storePageId: no store page ${input.storePageId}`, 'STORE_PAGE_NOT_FOUND');
  checkNewProduct(input);

  const id = deps.ids.objectId();
  const type = input.type;
  const names = hasAttributes(type) ? (input.variantAttributes ?? []) : [];
  const variants = hasVariants(type) ? variantRows(input.variants ?? [], type, names, website, id, deps) : [];
  const pricing =
    type === 'DIGITAL' && input.pricing
      ? pricingColumns(input.pricing, website.currency, 'pricing')
      : undefined;
  const name = input.name ?? '';
  const description = sanitizeDescription(input.description ?? '');
  const tags = input.tags ?? [];
  const givenSlug = input.urlSlug !== undefined ? normalizeUrlSlug(input.urlSlug) : undefined;

  const taken = await repo.existingSkus(
    deps.db,
    websiteId,
    variants.map((v) => v.sku),
  );
  const clash = variants.findIndex((v) => taken.has(v.sku));
  if (clash >= 0)
    throw new Conflict(
      `variants[${clash}].sku: "${variants[clash]?.sku}" is used by another variant`,
      'SKU_UNAVAILABLE',
    );

  let notified = 0;
  // A generated slug may be taken by a concurrent create between our check and insert: retry.
  for (let attempt = 0; ; attempt++) {
    const slug =
      givenSlug ??
      firstFreeSlug(
        slugify(name, 'product'),
        await repo.takenSlugs(deps.db, storePage.id, slugify(name, 'product')),
      );
    try {
      await deps.db.transaction().execute(async (trx) => {
        // Until stampRows() below gives the product its place in the order.
        const provisional = deps.clock.now(websiteId);
        await repo.insertProduct(trx, {
          id,
          website_id: websiteId,
          store_page_id: storePage.id,
          type,
          name,
          description,
          url_slug: slug,
          tags,
          is_visible: input.isVisible ?? false,
          variant_attributes: names,
          currency: pricing?.currency ?? null,
          base_price_minor: pricing?.base_price_minor ?? null,
          sale_price_minor: pricing?.sale_price_minor ?? null,
          on_sale: pricing?.on_sale ?? null,
          seo_options: seo(input.seoOptions),
          digital_good: null,
          search_text: searchText({
            name,
            descriptionText: descriptionText(description),
            tags,
            skus: variants.map((v) => v.sku),
          }),
          created_on: provisional,
          modified_on: provisional,
        });
        await repo.insertVariants(trx, variants);
        notified = await emit(trx, deps, { websiteId, topic: 'product.create', data: { productId: id } });
        // Last, as every change (product-changes.ts stamp()).
        await stampRows(trx, deps.clock, websiteId, 'products', [id], ['created_on', 'modified_on']);
      });
      break;
    } catch (error) {
      const constraint = uniqueViolation(error);
      if (constraint === 'variants_sku_key')
        throw new Conflict('variants: a SKU is used by another variant', 'SKU_UNAVAILABLE');
      if (constraint === 'products_slug_key') {
        if (givenSlug)
          throw new Conflict(`urlSlug: "${givenSlug}" is taken on this store page`, 'URL_SLUG_UNAVAILABLE');
        // Each retry sees the slugs the winners took: N racing creates of one name settle in N tries.
        if (attempt < MAX_SLUG_ATTEMPTS) continue;
      }
      throw error;
    }
  }
  if (notified) deps.jobs.wakeDeliveryWorkers();
  deps.lists.changed(websiteId);
  return getProduct(deps, websiteId, id, api);
}

/** Partial update: a field left out is unchanged; `modifiedOn` moves on every write (api-details 4). */
export async function updateProduct(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  changes: UpdateProductInput,
  api: ApiVersion = '1.1',
  /** The names the client used for fields, where its version's differ (v2's productAttributeNames). */
  sent: Record<string, string> = {},
): Promise<ProductJson> {
  if (Object.keys(changes).length === 0) return getProduct(deps, websiteId, productId, api);
  const website = await getWebsite(deps.db, websiteId);
  try {
    await changeProduct(
      deps,
      websiteId,
      productId,
      async (trx, product) => {
        checkProductFields(product.type, changes, sent);
        const set: Partial<ProductsTable> = {};
        if (changes.name !== undefined) set.name = changes.name;
        if (changes.description !== undefined) set.description = sanitizeDescription(changes.description);
        if (changes.tags !== undefined) set.tags = changes.tags;
        if (changes.isVisible !== undefined) set.is_visible = changes.isVisible;
        if (changes.seoOptions !== undefined) set.seo_options = seo(changes.seoOptions);
        if (changes.urlSlug !== undefined) {
          const slug = normalizeUrlSlug(changes.urlSlug);
          if (await repo.slugTaken(trx, product.store_page_id, slug, product.id)) {
            throw new Conflict(`urlSlug: "${slug}" is taken on this store page`, 'URL_SLUG_UNAVAILABLE');
          }
          set.url_slug = slug;
        }
        if (changes.pricing !== undefined) {
          Object.assign(set, pricingColumns(changes.pricing, website.currency, 'pricing'));
        }
        if (changes.variantAttributes !== undefined) {
          const variants = await repo.selectProductVariants(trx, product.id);
          await replaceVariantAttributes(trx, variants, changes.variantAttributes);
          set.variant_attributes = changes.variantAttributes;
        }
        return { set, result: undefined };
      },
      api,
    );
  } catch (error) {
    if (uniqueViolation(error) === 'products_slug_key') {
      throw new Conflict(`urlSlug: "${changes.urlSlug}" is taken on this store page`, 'URL_SLUG_UNAVAILABLE');
    }
    throw error;
  }
  return getProduct(deps, websiteId, productId, api);
}

/**
 * A name removed from variantAttributes is removed from every variant; a name added is added with
 * an empty value. Two variants left with the same values is a 400 (api-details 4).
 */
async function replaceVariantAttributes(trx: Db, variants: VariantsTable[], names: string[]): Promise<void> {
  checkVariantAttributeNames(names, 'variantAttributes');
  if (names.length === 0 && variants.length >= 2) {
    throw new ValidationError('variantAttributes: required while the product has two or more variants');
  }
  const next = variants.map((v) => Object.fromEntries(names.map((n) => [n, v.attributes[n] ?? ''])));
  try {
    checkUniqueCombinations(next, names, 'variants');
  } catch {
    throw new ValidationError(
      'variantAttributes: the change would leave two variants with the same attribute values',
    );
  }
  for (const [i, variant] of variants.entries()) {
    await repo.updateVariantAttributes(trx, variant.id, next[i] ?? {});
  }
}

/**
 * Deletes the product, its variants and its images; the image files, and a download's file, go
 * once that commits.
 */
export async function deleteProduct(
  deps: CatalogDeps & { storage: ImageStorage },
  websiteId: string,
  productId: string,
  api: ApiVersion = '1.1',
): Promise<void> {
  // An image added after this read leaves files without a row, which the sweep removes.
  const imageIds = await images.imageOrder(deps.db, productId);
  let download: string | undefined;
  const notified = await deps.db.transaction().execute(async (trx) => {
    const product = await repo.lockProduct(trx, websiteId, productId);
    if (!product) throw new NotFound(`product not found: ${productId}`);
    checkCreateOrDelete(product, api);
    download = product.digital_good?.id;
    await repo.deleteProductRow(trx, websiteId, productId);
    return emit(trx, deps, { websiteId, topic: 'product.delete', data: { productId } });
  });
  if (notified) deps.jobs.wakeDeliveryWorkers();
  deps.documents.invalidate(productId, GONE);
  deps.lists.changed(websiteId);
  await removeFilesOf(deps.storage, imageIds);
  await removeDownloadFile(deps.storage, download);
}
