import type { Db } from '../db/database.ts';
import type { ProductsTable } from '../db/schema.ts';
import { NotFound } from '../errors.ts';
import { emit } from '../webhooks/outbox.ts';
import { descriptionText } from './description.ts';
import { searchText } from './product-rules.ts';
import * as repo from './products.repo.ts';
import type { CatalogDeps } from './products.service.ts';

/** What a changed product leaves to do after the commit. */
interface Recorded {
  productId: string;
  /** The new modifiedOn in milliseconds: the version of its cached document. */
  version: number;
  /** Notifications queued for product.update subscribers. */
  notified: number;
}

/**
 * The bookkeeping of every product change, in its transaction and under the product's row lock:
 * the search text is computed again (it holds the SKUs) and modifiedOn moves strictly forward,
 * even within one millisecond, since it versions the cached document (product-documents.ts) and
 * orders sync clients. The product.update subscribers are notified from the same transaction.
 */
async function record(
  trx: Db,
  deps: CatalogDeps,
  websiteId: string,
  product: ProductsTable,
  set: Partial<ProductsTable>,
): Promise<Recorded> {
  const variants = await repo.selectProductVariants(trx, product.id);
  set.search_text = searchText({
    name: set.name ?? product.name,
    descriptionText: descriptionText(set.description ?? product.description),
    tags: set.tags ?? product.tags,
    skus: variants.map((v) => v.sku),
  });
  const version = Math.max(deps.clock.now().getTime(), product.modified_on.getTime() + 1);
  set.modified_on = new Date(version);
  await repo.updateProductRow(trx, product.id, set);
  const notified = await emit(trx, deps, {
    websiteId,
    topic: 'product.update',
    data: { productId: product.id },
  });
  return { productId: product.id, version, notified };
}

/**
 * After the commit: the delivery workers are woken when notifications were queued, and this
 * instance's cached documents and list pages are dropped at once, so the answer and the next
 * read show the change; other instances hear of it from the change feed.
 */
function announce(deps: CatalogDeps, websiteId: string, recorded: Recorded[]): void {
  if (recorded.some((r) => r.notified)) deps.jobs.wakeDeliveryWorkers();
  for (const r of recorded) deps.documents.invalidate(r.productId, r.version);
  if (recorded.length) deps.lists.catalogChanged(websiteId);
}

/**
 * The one way an existing product, its variants or its images change. The change runs in a
 * transaction holding the product's row lock, so changes to one product apply one at a time and
 * limits counted inside it hold under concurrency; then record() and, after the commit,
 * announce() do what every change needs, whatever changed.
 */
export async function changeProduct<T>(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  change: (trx: Db, product: ProductsTable) => Promise<{ set?: Partial<ProductsTable>; result: T }>,
): Promise<T> {
  let recorded: Recorded | undefined;
  const result = await deps.db.transaction().execute(async (trx) => {
    const product = await repo.lockProduct(trx, websiteId, productId);
    if (!product) throw new NotFound(`product not found: ${productId}`);
    const { set = {}, result } = await change(trx, product);
    recorded = await record(trx, deps, websiteId, product, set);
    return result;
  });
  announce(deps, websiteId, recorded ? [recorded] : []);
  return result;
}

/**
 * Several products of a website changed together, inside the caller's transaction (which may do
 * more in it, such as keep an idempotency key). The rows are locked in id order, so two such
 * changes over overlapping products wait for each other instead of deadlocking, and every
 * changeProduct of those products waits too. `change` receives the products found, in id order
 * (a product missing here was deleted: the caller decides what that means), and names the
 * products it changed; each of those gets changeProduct's bookkeeping, the others none. Call
 * the returned announce() once the transaction has committed.
 */
export async function changeProducts<T>(
  trx: Db,
  deps: CatalogDeps,
  websiteId: string,
  productIds: string[],
  change: (products: ProductsTable[]) => Promise<{ changed: Iterable<string>; result: T }>,
): Promise<{ result: T; announce: () => void }> {
  const products = await repo.lockProducts(trx, websiteId, [...new Set(productIds)].sort());
  const { changed, result } = await change(products);
  const ids = new Set(changed);
  const recorded: Recorded[] = [];
  for (const product of products) {
    if (ids.has(product.id)) recorded.push(await record(trx, deps, websiteId, product, {}));
  }
  return { result, announce: () => announce(deps, websiteId, recorded) };
}
