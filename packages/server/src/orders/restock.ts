import { nextStock } from '../catalog/inventory/inventory-operations.ts';
import { lockVariants, updateStock, type LockedVariant } from '../catalog/inventory/inventory.repo.ts';
import { changeProducts } from '../catalog/product-changes.ts';
import type { Db } from '../db/database.ts';
import type { OrderRow } from './order-document.ts';
import type { OrderDeps } from './place-order.ts';

/**
 * Putting an order's items back in stock, as a cancel or a refund does when the owner asks. Under
 * the products' locks, then the variants', as placing an order takes stock, through the same
 * increment rule as an inventory adjustment; the products whose stock changed are stamped and
 * announced (product.update). A variant deleted since, or with unlimited stock, is left alone.
 */

/** Quantities by variant id. */
export type Quantities = Map<string, number>;

/** The quantity of each variant these lines of the order sold: its catalog lines only (not CUSTOM). */
export function variantQuantities(order: OrderRow, quantityOf: (lineId: string) => number): Quantities {
  const sold: Quantities = new Map();
  for (const line of order.document.lineItems) {
    if (line.lineItemType === 'CUSTOM' || !line.variantId) continue;
    const quantity = quantityOf(line.id);
    if (quantity > 0) sold.set(line.variantId, (sold.get(line.variantId) ?? 0) + quantity);
  }
  return sold;
}

async function returnStock(
  trx: Db,
  websiteId: string,
  quantities: Quantities,
): Promise<{ changed: string[]; restocked: number }> {
  const locked = await lockVariants(trx, websiteId, [...quantities.keys()]);
  const writes: LockedVariant[] = [];
  let restocked = 0;
  for (const variant of locked) {
    if (variant.stock_unlimited) continue;
    const quantity = quantities.get(variant.id)!;
    const op = {
      kind: 'increment' as const,
      variantId: variant.id,
      quantity,
      at: `restock of ${variant.sku}`,
      field: 'variantId',
    };
    writes.push({ ...variant, ...nextStock(op, variant.sku, variant) });
    restocked += quantity;
  }
  await updateStock(trx, writes);
  return { changed: writes.map((w) => w.product_id), restocked };
}

/**
 * Runs `write` (the order's own change) and then puts `quantities` back in stock, in the caller's
 * transaction: the catalog's locks come after the order's own work (its buyer's profile, gift
 * cards), in the order placing an order takes them (place-order.ts). `announce` is for after the
 * commit.
 */
export async function withRestock<T>(
  trx: Db,
  deps: OrderDeps,
  order: OrderRow,
  quantities: Quantities,
  write: () => Promise<T>,
): Promise<{ result: T; restocked: number; announce: () => void }> {
  const result = await write();
  if (quantities.size === 0) return { result, restocked: 0, announce: () => {} };
  const productIds = order.document.lineItems.flatMap((l) => (l.productId ? [l.productId] : []));
  const changed = await changeProducts(trx, deps, order.website_id, productIds, async () => {
    const stock = await returnStock(trx, order.website_id, quantities);
    return { changed: stock.changed, result: stock.restocked };
  });
  return { result, restocked: changed.result, announce: changed.announce };
}
