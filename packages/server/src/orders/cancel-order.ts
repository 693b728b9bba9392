import { nextStock } from '../catalog/inventory/inventory-operations.ts';
import { lockVariants, updateStock, type LockedVariant } from '../catalog/inventory/inventory.repo.ts';
import { changeProducts } from '../catalog/product-changes.ts';
import { stampRows } from '../db/change-clock.ts';
import type { Db } from '../db/database.ts';
import { lockDiscountsOfOrder, returnRedemptions } from '../discounts/discount-redemptions.repo.ts';
import { Conflict, NotFound, ValidationError } from '../shared/errors.ts';
import { emit } from '../webhooks/outbox.ts';
import type { OrderRow } from './order-document.ts';
import { checkOrderId } from './orders.read.ts';
import { emailBuyer } from './order-emails.ts';
import * as repo from './orders.repo.ts';
import { recountOrders } from '../customers/profiles.repo.ts';
import type { OrderDeps } from './place-order.ts';
import { voidOrderDocument } from '../transactions/transactions.repo.ts';

/**
 * Canceling an order, as the owner does from the order's page (the platform's API has no cancel
 * endpoint: platform-surface 2.1.4). Only a PENDING order can be canceled: a FULFILLED one has
 * shipped, and a CANCELED one is done. The order's fulfillmentStatus becomes CANCELED, its
 * transaction document is voided (2.2.3 `voided`: "order canceled"), both get a new modifiedOn,
 * and `order.update` with `CANCELED` is queued (platform-surface 3), the buyer's profile no
 * longer counts the order (its summary is the one analytics gives), and the discount it used gets
 * its use back (a limited or once-per-customer code can be used again), and the buyer's
 * cancellation notice is written (emails/), all in one transaction.
 * No money moves: paymentState, refundedTotal and the totals stay as they were, since Emporium
 * takes no real payments; the document's `voided` says the sale did not stand.
 */

export interface CancelOptions {
  /**
   * Put the quantities of the order's catalog lines back in stock (the owner's "Restock items").
   * Never done for an order whose placing took no stock (an import without DEDUCT).
   */
  restock: boolean;
}

export interface Canceled {
  /** Items put back in stock, over all lines (unlimited stock and deleted variants count none). */
  restocked: number;
}

/** The quantity of each variant the order's catalog lines sold. */
function soldQuantities(order: OrderRow): Map<string, number> {
  const sold = new Map<string, number>();
  for (const line of order.document.lineItems) {
    if (line.lineItemType !== 'PHYSICAL_PRODUCT' || !line.variantId) continue;
    sold.set(line.variantId, (sold.get(line.variantId) ?? 0) + line.quantity);
  }
  return sold;
}

/**
 * Adds the sold quantities back to their variants, under the variants' row locks taken after
 * their products' (as place-order.ts takes stock), through the same increment rule as an
 * inventory adjustment. A variant deleted since, or with unlimited stock, is left alone.
 */
async function returnStock(
  trx: Db,
  websiteId: string,
  sold: Map<string, number>,
): Promise<{ changed: string[]; restocked: number }> {
  const locked = await lockVariants(trx, websiteId, [...sold.keys()]);
  const writes: LockedVariant[] = [];
  let restocked = 0;
  for (const variant of locked) {
    if (variant.stock_unlimited) continue;
    const quantity = sold.get(variant.id)!;
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

export async function cancelOrder(
  deps: OrderDeps,
  websiteId: string,
  orderId: string,
  options: CancelOptions,
): Promise<Canceled> {
  checkOrderId(orderId);
  let notified = 0;
  let emailed = false;
  let announceProducts = () => {};
  const canceled = await deps.db.transaction().execute(async (trx) => {
    const order = await repo.lockOrder(trx, websiteId, orderId);
    if (order === 'busy') {
      throw new Conflict(
        'a request using the provided Order is already in progress; retry once it has finished',
        'CONCURRENT_MODIFICATION',
      );
    }
    if (!order) throw new NotFound(`order not found: ${orderId}`);
    if (order.fulfillment_status === 'CANCELED') {
      throw new ValidationError(`order ${orderId} is already CANCELED`);
    }
    if (order.fulfillment_status === 'FULFILLED') {
      throw new ValidationError(
        `order ${orderId} is FULFILLED and cannot be canceled: its items have shipped`,
      );
    }

    // The discounts' rows before the catalog's, in the order a checkout takes them.
    await lockDiscountsOfOrder(trx, websiteId, orderId);
    // Everything is written before the stamps, which take the website's change clock last.
    const write = async (): Promise<string | undefined> => {
      await repo.updateOrder(trx, orderId, { fulfillment_status: 'CANCELED' });
      if (order.customer_id) await recountOrders(trx, websiteId, order.customer_id);
      await returnRedemptions(trx, websiteId, orderId);
      notified = await emit(trx, deps, {
        websiteId,
        topic: 'order.update',
        data: { orderId, update: 'CANCELED' },
      });
      // Canceling is the owner's doing: the buyer is told.
      emailed = await emailBuyer(trx, deps, order, 'cancellation_notice');
      return voidOrderDocument(trx, websiteId, orderId);
    };
    const restock = options.restock && order.stock_taken !== false;
    const sold = restock ? soldQuantities(order) : new Map<string, number>();
    let documentId: string | undefined;
    let restocked = 0;
    if (sold.size > 0) {
      const productIds = order.document.lineItems.flatMap((l) => (l.productId ? [l.productId] : []));
      // Locks the products, then the variants, as placing an order does, then stamps the products.
      const changed = await changeProducts(trx, deps, websiteId, productIds, async () => {
        const stock = await returnStock(trx, websiteId, sold);
        restocked = stock.restocked;
        return { changed: stock.changed, result: await write() };
      });
      documentId = changed.result;
      announceProducts = changed.announce;
    } else {
      documentId = await write();
    }
    await stampRows(trx, deps.clock, websiteId, 'orders', [orderId]);
    if (documentId) await stampRows(trx, deps.clock, websiteId, 'transaction_documents', [documentId]);
    return { restocked };
  });
  announceProducts();
  if (notified) deps.jobs.wakeDeliveryWorkers();
  if (emailed) deps.jobs.wakeEmailWorkers();
  deps.orders.lists.changed(websiteId);
  return canceled;
}
