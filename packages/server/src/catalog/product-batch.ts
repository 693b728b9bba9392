import { stampRows } from '../db/change-clock.ts';
import type { ProductsTable, VariantsTable } from '../db/schema.ts';
import { Conflict, ValidationError } from '../shared/errors.ts';
import { firstFreeSlug, slugify } from '../shared/slug.ts';
import { findStorePage } from '../sites/store-pages.repo.ts';
import { getWebsite } from '../sites/websites.service.ts';
import { emit } from '../webhooks/outbox.ts';
import { descriptionText, sanitizeDescription } from './description.ts';
import { checkNewProduct, variantRows, type ProductInput } from './new-product.ts';
import { normalizeUrlSlug, pricingColumns, searchText } from './product-rules.ts';
import { checkCreateOrDelete, hasAttributes, hasVariants, type ApiVersion } from './product-types.ts';
import * as repo from './products.repo.ts';
import type { CatalogDeps } from './products.service.ts';

/** A product of a batch: its input, the version it is created through, and where it is in the caller's document. */
export interface BatchProduct {
  input: ProductInput;
  api: ApiVersion;
  /** Prefixes each error's field, as `products[3]`. */
  at: string;
}

/** A product made, with its variants' ids by SKU, for the caller to refer to them. */
export interface MadeProduct {
  id: string;
  variants: { id: string; sku: string }[];
}

function failAt(at: string, error: unknown): never {
  if (error instanceof ValidationError) throw new ValidationError(`${at}.${error.message}`, error.subtype);
  if (error instanceof Conflict) throw new Conflict(`${at}.${error.message}`, error.subtype);
  throw error;
}

/**
 * Creates many products of one website in one transaction, each by the rules of createProduct
 * (products.service.ts): its type served by its version, its store page the website's, its
 * fields its type's, SKUs free in the website, a given URL slug free on its page and a made one
 * the first free; `product.create` queued for each, and the products stamped together, in the
 * order given. For loading a site (testing/fixtures/): one commit for hundreds of products
 * instead of one each. All are made or none.
 */
export async function createProducts(
  deps: CatalogDeps,
  websiteId: string,
  batch: BatchProduct[],
): Promise<MadeProduct[]> {
  if (batch.length === 0) return [];
  const website = await getWebsite(deps.db, websiteId);
  const pages = new Map<string, string>();
  const products: ProductsTable[] = [];
  const variants: VariantsTable[] = [];
  const made: MadeProduct[] = [];
  const skus = new Map<string, string>();
  for (const { input, api, at } of batch) {
    try {
      checkCreateOrDelete({ id: 'new', type: input.type }, api);
      if (!pages.has(input.storePageId)) {
        const page = await findStorePage(deps.db, websiteId, input.storePageId);
        if (!page)
          throw new ValidationError(
            `storePageId: no store page ${input.storePageId}`,
            'STORE_PAGE_NOT_FOUND',
          );
        pages.set(input.storePageId, page.id);
      }
      checkNewProduct(input);
    } catch (error) {
      failAt(at, error);
    }
    const id = deps.ids.objectId();
    const type = input.type;
    const names = hasAttributes(type) ? (input.variantAttributes ?? []) : [];
    let rows: VariantsTable[] = [];
    let pricing;
    try {
      rows = hasVariants(type) ? variantRows(input.variants ?? [], type, names, website, id, deps) : [];
      pricing =
        type === 'DIGITAL' && input.pricing
          ? pricingColumns(input.pricing, website.currency, 'pricing')
          : undefined;
    } catch (error) {
      failAt(at, error);
    }
    rows.forEach((row, i) => {
      const other = skus.get(row.sku);
      if (other !== undefined)
        failAt(
          at,
          new Conflict(`variants[${i}].sku: "${row.sku}" is the SKU of ${other} too`, 'SKU_UNAVAILABLE'),
        );
      skus.set(row.sku, at);
    });
    const name = input.name ?? '';
    const description = sanitizeDescription(input.description ?? '');
    const tags = input.tags ?? [];
    const now = deps.clock.now(websiteId);
    products.push({
      id,
      website_id: websiteId,
      store_page_id: pages.get(input.storePageId)!,
      type,
      name,
      description,
      // Set below, once every given slug of the batch is known.
      url_slug: input.urlSlug === undefined ? '' : normalizeUrlSlug(input.urlSlug),
      tags,
      is_visible: input.isVisible ?? false,
      variant_attributes: names,
      currency: pricing?.currency ?? null,
      base_price_minor: pricing?.base_price_minor ?? null,
      sale_price_minor: pricing?.sale_price_minor ?? null,
      on_sale: pricing?.on_sale ?? null,
      seo_options: input.seoOptions
        ? { title: input.seoOptions.title ?? null, description: input.seoOptions.description ?? null }
        : null,
      digital_good: null,
      search_text: searchText({
        name,
        descriptionText: descriptionText(description),
        tags,
        skus: rows.map((v) => v.sku),
      }),
      created_on: now,
      modified_on: now,
    });
    variants.push(...rows);
    made.push({ id, variants: rows.map((row) => ({ id: row.id, sku: row.sku })) });
  }

  let notified = 0;
  await deps.db.transaction().execute(async (trx) => {
    const taken = await repo.existingSkus(trx, websiteId, [...skus.keys()]);
    const clash = [...skus.keys()].find((sku) => taken.has(sku));
    if (clash)
      failAt(
        skus.get(clash)!,
        new Conflict(`variants: "${clash}" is used by another variant`, 'SKU_UNAVAILABLE'),
      );
    await assignSlugs(trx, products, batch);
    // Inserted in slices: a statement's parameters are bounded (65,535).
    for (let i = 0; i < products.length; i += 200) {
      await trx
        .insertInto('products')
        .values(products.slice(i, i + 200))
        .execute();
    }
    for (let i = 0; i < variants.length; i += 500) await repo.insertVariants(trx, variants.slice(i, i + 500));
    // The website's subscriptions are the same for every product of this transaction: when the
    // first notice finds none, the others would find none either.
    for (const product of products) {
      const count = await emit(trx, deps, {
        websiteId,
        topic: 'product.create',
        data: { productId: product.id },
      });
      notified += count;
      if (count === 0) break;
    }
    await stampRows(
      trx,
      deps.clock,
      websiteId,
      'products',
      products.map((p) => p.id),
      ['created_on', 'modified_on'],
    );
  });
  if (notified) deps.jobs.wakeDeliveryWorkers();
  deps.lists.changed(websiteId);
  return made;
}

/**
 * Each product's URL slug: a given one must be free on its page, among the page's products and
 * the batch's; a made one is the first free of its name's, as createProduct makes it. Runs in the
 * transaction, so that the unique constraint is what decides against a concurrent create.
 */
async function assignSlugs(
  trx: CatalogDeps['db'],
  products: ProductsTable[],
  batch: BatchProduct[],
): Promise<void> {
  const taken = new Map<string, Set<string>>();
  const takenOn = async (page: string) => {
    if (!taken.has(page)) {
      const rows = await trx
        .selectFrom('products')
        .select('url_slug')
        .where('store_page_id', '=', page)
        .execute();
      taken.set(page, new Set(rows.map((r) => r.url_slug)));
    }
    return taken.get(page)!;
  };
  for (const [i, product] of products.entries()) {
    if (!product.url_slug) continue;
    const slugs = await takenOn(product.store_page_id);
    if (slugs.has(product.url_slug))
      failAt(
        batch[i]!.at,
        new Conflict(`urlSlug: "${product.url_slug}" is taken on this store page`, 'URL_SLUG_UNAVAILABLE'),
      );
    slugs.add(product.url_slug);
  }
  for (const product of products) {
    if (product.url_slug) continue;
    const slugs = await takenOn(product.store_page_id);
    product.url_slug = firstFreeSlug(slugify(product.name, 'product'), slugs);
    slugs.add(product.url_slug);
  }
}
