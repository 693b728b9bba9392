import { stampTables, type StampPart } from '../db/change-clock.ts';
import type { Db } from '../db/database.ts';
import type { ProductsTable } from '../db/schema.ts';
import { NotFound } from '../shared/errors.ts';
import { emit, emitAll } from '../webhooks/outbox.ts';
import { descriptionText } from './description.ts';
import { searchText } from './product-rules.ts';
import { checkServed, type ApiVersion } from './product-types.ts';
import * as repo from './products.repo.ts';
import type { CatalogDeps } from './products.service.ts';

/** A product's change, written but for its stamp. */
interface Pending {
  productId: string;
  /** Notifications queued for product.update subscribers. */
  notified: number;
  /** Columns of the product's row the stamping statement writes with its stamp. */
  values: Partial<ProductsTable>;
}

/** What a changed product leaves to do after the commit. */
interface Recorded {
  productId: string;
  notified: number;
  /** The new modifiedOn in milliseconds: the version of its cached document. */
  version: number;
}

/**
 * The bookkeeping of every product change, in its transaction and under the product's row lock:
 * the search text is computed again (it holds the SKUs), and the product.update subscribers are
 * notified from the same transaction. stamp() then gives it its modifiedOn and writes the row's
 * other changed columns in the same statement (StampPart.values).
 */
async function record(
  trx: Db,
  deps: CatalogDeps,
  websiteId: string,
  product: ProductsTable,
  set: Partial<ProductsTable>,
): Promise<Pending> {
  const variants = await repo.selectProductVariants(trx, product.id);
  const text = searchText({
    name: set.name ?? product.name,
    descriptionText: descriptionText(set.description ?? product.description),
    tags: set.tags ?? product.tags,
    skus: variants.map((v) => v.sku),
  });
  // The columns of a unique index (products_slug_key) are written now, not under the clock.
  const { url_slug, store_page_id, ...values } =
    text === product.search_text ? set : { ...set, search_text: text };
  if (url_slug !== undefined || store_page_id !== undefined) {
    await repo.updateProductRow(trx, product.id, { url_slug, store_page_id });
  }
  const notified = await emit(trx, deps, {
    websiteId,
    topic: 'product.update',
    data: { productId: product.id },
  });
  return { productId: product.id, notified, values };
}

/**
 * The last work of a change's transaction: the changed product gets its new modifiedOn from the
 * website's change clock (db/change-clock.ts), which versions its cached document
 * (product-documents.ts) and orders sync clients. Nothing is written under the clock's lock but
 * rows the transaction holds, so its holder never waits for another transaction (a unique key, a
 * row) while others wait.
 */
async function stamp(trx: Db, deps: CatalogDeps, websiteId: string, pending: Pending): Promise<Recorded> {
  const [stamps] = await stampTables(trx, deps.clock, websiteId, [
    { table: 'products', ids: [pending.productId], values: pending.values },
  ]);
  return { productId: pending.productId, notified: pending.notified, version: stamps![0]!.getTime() };
}

/**
 * After the commit: the delivery workers are woken when notifications were queued, and this
 * instance's cached documents and list pages are dropped at once, so the answer and the next
 * read show the change; other instances hear of it from the change feed.
 */
function announce(deps: CatalogDeps, websiteId: string, recorded: Recorded[]): void {
  if (recorded.some((r) => r.notified)) deps.jobs.wakeDeliveryWorkers();
  for (const r of recorded) deps.documents.invalidate(r.productId, r.version);
  if (recorded.length) deps.lists.changed(websiteId);
}

/**
 * The one way an existing product, its variants or its images change. The change runs in a
 * transaction holding the product's row lock, so changes to one product apply one at a time and
 * limits counted inside it hold under concurrency; then record(), stamp() and, after the
 * commit, announce() do what every change needs, whatever changed.
 */
export async function changeProduct<T>(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  change: (trx: Db, product: ProductsTable) => Promise<{ set?: Partial<ProductsTable>; result: T }>,
  /** The API version the change comes through: a product of a type it does not serve is a 405. */
  api: ApiVersion = 'v2',
): Promise<T> {
  let recorded: Recorded[] = [];
  const result = await deps.db.transaction().execute(async (trx) => {
    const product = await repo.lockProduct(trx, websiteId, productId);
    if (!product) throw new NotFound(`product not found: ${productId}`);
    checkServed(product, api);
    const { set = {}, result } = await change(trx, product);
    recorded = [await stamp(trx, deps, websiteId, await record(trx, deps, websiteId, product, set))];
    return result;
  });
  announce(deps, websiteId, recorded);
  return result;
}

/**
 * Several products' stock changed together, inside the caller's transaction (an order taking
 * stock, a restock, an inventory adjustment), which may do more in it before but not after:
 * this stamps the changes (see stamp()). The rows are locked in id order, so two such changes
 * over overlapping products wait for each other instead of deadlocking, and every changeProduct
 * of those products waits too. `change` receives the ids of the products found, in id order (a
 * product missing here was deleted: the caller decides what that means), and names the products it
 * changed; each of those gets product.update and a new modifiedOn, the others nothing. Call the
 * returned announce() once the transaction has committed.
 */
export async function changeProducts<T>(
  trx: Db,
  deps: CatalogDeps,
  websiteId: string,
  productIds: string[],
  change: (productIds: string[]) => Promise<{ changed: Iterable<string>; result: T }>,
): Promise<{ result: T; announce: () => void }> {
  const { result, products } = await changeProductsUnstamped(trx, deps, websiteId, productIds, change);
  const [stamps] = await stampTables(trx, deps.clock, websiteId, [products.part]);
  return { result, announce: products.stamped(stamps!) };
}

/** Products whose stock changed, recorded, waiting for their stamps. */
export interface UnstampedProducts {
  /** Their part of the transaction's stamps, which the caller takes last (stampTables). */
  part: StampPart<'products'>;
  /** Given the stamps of that part: what to do once the transaction has committed. */
  stamped: (stamps: Date[]) => () => void;
}

/**
 * changeProducts(), leaving the stamps to the caller, which takes them with its own rows' in one
 * statement as its transaction's last work: placing an order locks its products as late as it
 * can, since every order of them waits for those locks until the commit.
 */
export async function changeProductsUnstamped<T>(
  trx: Db,
  deps: CatalogDeps,
  websiteId: string,
  productIds: string[],
  change: (productIds: string[]) => Promise<{ changed: Iterable<string>; result: T }>,
): Promise<{ result: T; products: UnstampedProducts }> {
  const locked = await repo.lockProducts(trx, websiteId, [...new Set(productIds)].sort());
  const { changed, result } = await change(locked);
  const ids = new Set(changed);
  const changedIds = locked.filter((id) => ids.has(id));
  // A change of stock leaves the names, tags and SKUs, so the search text, as they were.
  const notified = await emitAll(
    trx,
    deps,
    websiteId,
    changedIds.map((productId) => ({ websiteId, topic: 'product.update' as const, data: { productId } })),
  );
  return {
    result,
    products: {
      part: { table: 'products', ids: changedIds },
      stamped: (stamps) => () =>
        announce(
          deps,
          websiteId,
          changedIds.map((productId, i) => ({ productId, notified, version: stamps[i]!.getTime() })),
        ),
    },
  };
}
