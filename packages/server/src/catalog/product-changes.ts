import type { Db } from '../db/database.ts';
import type { ProductsTable } from '../db/schema.ts';
import { NotFound } from '../errors.ts';
import { descriptionText } from './description.ts';
import { searchText } from './product-rules.ts';
import * as repo from './products.repo.ts';
import type { CatalogDeps } from './products.service.ts';

/**
 * The one way an existing product, its variants or its images change. The change runs in a
 * transaction holding the product's row lock, so changes to one product apply one at a time and
 * limits counted inside it hold under concurrency. Then, whatever changed: the search text is
 * computed again (it holds the SKUs) and modifiedOn moves strictly forward, even within one
 * millisecond, since it versions the cached document (product-documents.ts) and orders sync
 * clients. After the commit this instance's cached document and list pages are dropped at once,
 * so the answer and the next read show the change; other instances hear of it from the change feed.
 */
export async function changeProduct<T>(
  deps: CatalogDeps,
  websiteId: string,
  productId: string,
  change: (trx: Db, product: ProductsTable) => Promise<{ set?: Partial<ProductsTable>; result: T }>,
): Promise<T> {
  let version = 0;
  const result = await deps.db.transaction().execute(async (trx) => {
    const product = await repo.lockProduct(trx, websiteId, productId);
    if (!product) throw new NotFound(`product not found: ${productId}`);
    const { set = {}, result } = await change(trx, product);
    const variants = await repo.selectProductVariants(trx, product.id);
    set.search_text = searchText({
      name: set.name ?? product.name,
      descriptionText: descriptionText(set.description ?? product.description),
      tags: set.tags ?? product.tags,
      skus: variants.map((v) => v.sku),
    });
    version = Math.max(deps.clock.now().getTime(), product.modified_on.getTime() + 1);
    set.modified_on = new Date(version);
    await repo.updateProductRow(trx, product.id, set);
    return result;
  });
  deps.documents.invalidate(productId, version);
  deps.lists.catalogChanged(websiteId);
  return result;
}
