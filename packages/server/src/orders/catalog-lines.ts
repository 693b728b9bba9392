import { lockVariants, takeStockWhereEnough } from '../catalog/inventory/inventory.repo.ts';
import { imageUrl } from '../catalog/products.mapper.ts';
import type { Db } from '../db/database.ts';
import { Conflict, ValidationError } from '../shared/errors.ts';
import { lineItemTypeOf, shipsLine, type LineItemType, type OrderLine } from '../shared/order-model.ts';
import type { DraftLine, OrderDeps } from './place-order.ts';
import * as repo from './orders.repo.ts';

/**
 * An order's lines but its downloads (download-lines.ts): a CUSTOM line as sent, the others made
 * from their variants in the catalog, and the stock they take.
 */

/** The product type each catalog line type sells, for the message of a mismatch. */
const PRODUCT_TYPE_OF: Partial<Record<LineItemType, string>> = {
  PHYSICAL_PRODUCT: 'PHYSICAL',
  SERVICE: 'SERVICE',
  DIGITAL: 'DIGITAL',
  GIFT_CARD: 'GIFT_CARD',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The website's variants the lines name, by id (an id that is not a UUID names none). */
export async function selectLineVariants(
  trx: Db,
  websiteId: string,
  lines: DraftLine[],
): Promise<Map<string, repo.CatalogVariant>> {
  const ids = lines.flatMap((l) =>
    l.variantId && UUID.test(l.variantId.toLowerCase()) ? [l.variantId.toLowerCase()] : [],
  );
  return new Map((await repo.selectCatalogVariants(trx, websiteId, ids)).map((v) => [v.id, v]));
}

/** The line of this draft line, or the 400 that refuses the order for it. */
export function catalogLine(
  deps: OrderDeps,
  draft: DraftLine,
  field: string,
  variants: Map<string, repo.CatalogVariant>,
): Omit<OrderLine, 'id'> {
  const base = {
    lineItemType: draft.lineItemType,
    quantity: draft.quantity,
    unitPricePaidMinor: draft.unitPricePaidMinor,
    customizations: draft.customizations,
    ...(draft.discountMinor !== undefined && { discountMinor: draft.discountMinor }),
  };
  if (draft.lineItemType === 'CUSTOM') {
    return {
      ...base,
      variantId: null,
      sku: null,
      productId: null,
      productName: draft.title ?? '',
      weight: 0,
      width: 0,
      length: 0,
      height: 0,
      variantOptions: null,
      imageUrl: null,
    };
  }
  const variant = variants.get(draft.variantId!.toLowerCase());
  if (!variant) {
    throw new ValidationError(`${field}.variantId: no variant ${draft.variantId} on this website`);
  }
  if (lineItemTypeOf(variant.product_type) !== draft.lineItemType) {
    const type = PRODUCT_TYPE_OF[draft.lineItemType] ?? 'PHYSICAL';
    throw new ValidationError(
      `${field}.variantId: variant ${variant.id} is of a ${variant.product_type} product; a ${draft.lineItemType} line sells a ${type} product's variant`,
    );
  }
  // Measurements are a shipped item's; other lines have 0 (platform-surface 2.1.4).
  const ships = shipsLine(draft.lineItemType);
  return {
    ...base,
    variantId: variant.id,
    sku: variant.sku,
    productId: variant.product_id,
    productName: variant.product_name,
    weight: ships ? variant.weight_value : 0,
    width: ships ? variant.width : 0,
    length: ships ? variant.length : 0,
    height: ships ? variant.height : 0,
    // A gift card's amount is its price, not an option: null, as the platform has it (2.1.4).
    variantOptions:
      draft.lineItemType === 'GIFT_CARD'
        ? null
        : variant.variant_attributes.map((name) => ({
            optionName: name,
            value: variant.attributes[name] ?? '',
          })),
    imageUrl: variant.image_id ? imageUrl(deps.baseUrl, variant.image_id) : null,
  };
}

/**
 * Takes the lines' quantities from their variants' stock, under the products' row locks
 * (changeProducts), so concurrent orders and adjustments of the same variants apply one at a
 * time and stock never goes below zero: one statement where every variant has enough, the usual
 * case. Unlimited stock is left as it is. Returns the products changed.
 */
export async function takeStock(
  trx: Db,
  websiteId: string,
  lines: Omit<OrderLine, 'id'>[],
): Promise<string[]> {
  const wanted = new Map<string, { quantity: number; field: string }>();
  for (const [i, line] of lines.entries()) {
    if (!line.variantId) continue;
    const entry = wanted.get(line.variantId) ?? { quantity: 0, field: `lineItems[${i}]` };
    entry.quantity += line.quantity;
    wanted.set(line.variantId, entry);
  }
  const taken = await takeStockWhereEnough(
    trx,
    websiteId,
    [...wanted].map(([id, { quantity }]) => ({ id, quantity })),
  );
  const left = [...wanted.keys()].filter((id) => !taken.some((t) => t.id === id));
  // Not taken: a variant of unlimited stock, or one short or deleted meanwhile, which refuses all.
  const locked = await lockVariants(trx, websiteId, left);
  for (const id of left) {
    const { quantity, field } = wanted.get(id)!;
    const variant = locked.find((v) => v.id === id);
    if (!variant) throw new ValidationError(`${field}.variantId: no variant ${id} on this website`);
    if (variant.stock_unlimited) continue;
    throw new Conflict(
      `${field}.variantId: variant ${id} (SKU ${variant.sku}) has ${variant.stock_quantity} in stock, ` +
        `${quantity} ordered; nothing was ordered`,
      'INSUFFICIENT_STOCK',
    );
  }
  return taken.map((t) => t.product_id);
}
