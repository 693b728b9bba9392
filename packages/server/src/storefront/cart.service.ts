import { lineItemTypeOf, storeSells, type StoreLineItemType } from '../shared/order-model.ts';
import { productPath } from '../shared/store-urls.ts';
import type { Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { addLine, isVariantId, lineKey, lineOfKey, MAX_QUANTITY, type Cart } from './cart.ts';
import { selectCartProducts, selectCartVariants, type CartProduct, type CartVariant } from './cart.repo.ts';

/**
 * What the store shows and sells of a cart: each line as the catalog has it now (name, price,
 * stock), never as the cookie remembers it. Lines whose variant is gone or no longer for sale
 * are dropped, and the caller writes the shorter cart back.
 */

export interface CartItem {
  /** The cart line's key (cart.ts lineKey): what the cart page's forms name it by. */
  key: string;
  /** The variant sold; null for a product sold without variants (a download). */
  variantId: string | null;
  /** Its product: what a PRODUCT discount names (discount-pricing.ts). */
  productId: string;
  /** The order line it becomes (order-model.ts): only a physical item is shipped. */
  lineItemType: StoreLineItemType;
  /** "Linen shirt (M, Blue)": the product and, when it has variants, the chosen one's values. */
  name: string;
  productName: string;
  /** The variant's attribute values in the product's order ("Size: M"), for showing. */
  options: { name: string; value: string }[];
  /** Where its product page is, from the website's root (`/s/<id>/shop/p/linen-shirt`). */
  path: string;
  /** The price now: the sale price while on sale. */
  unitPriceMinor: number;
  /** The regular price, shown struck through while on sale. */
  basePriceMinor: number;
  onSale: boolean;
  quantity: number;
  lineTotalMinor: number;
  /** Set when the stock is short of the quantity: what the shopper is told. */
  shortage?: string;
}

export interface CartView {
  items: CartItem[];
  subtotalMinor: number;
  /** The cart as it still stands: without the lines that can no longer be bought. */
  cart: Cart;
  /** Lines were dropped, so the caller writes `cart` back and says so. */
  dropped: string[];
}

const sellable = (v: CartVariant) => v.for_sale && storeSells(v.product_type);

export function itemName(v: Pick<CartVariant, 'product_name' | 'variant_attributes' | 'attributes'>): string {
  const values = v.variant_attributes.map((a) => v.attributes[a]).filter((x) => x);
  return values.length ? `${v.product_name} (${values.join(', ')})` : v.product_name;
}

/**
 * The shopper's message when the stock is short of what they want, or undefined when it is
 * enough: checkout shows it in place of the order, the cart next to the line.
 */
export function shortageMessage(
  v: Pick<
    CartVariant,
    'product_name' | 'variant_attributes' | 'attributes' | 'stock_quantity' | 'stock_unlimited'
  >,
  quantity: number,
): string | undefined {
  if (v.stock_unlimited || v.stock_quantity >= quantity) return undefined;
  if (v.stock_quantity <= 0) return `Sorry, ${itemName(v)} is sold out.`;
  return `Sorry, only ${v.stock_quantity} of ${itemName(v)} left; lower the quantity to buy it.`;
}

/** What the shopper is told of lines that left their cart. */
export function droppedNotice(dropped: string[]): string | undefined {
  return dropped.length
    ? `${dropped.join(', ')} can no longer be bought here and left your cart.`
    : undefined;
}

function itemOf(websiteId: string, v: CartVariant, quantity: number): CartItem {
  const unitPriceMinor = v.on_sale ? v.sale_price_minor : v.base_price_minor;
  const shortage = shortageMessage(v, quantity);
  return {
    key: v.id,
    variantId: v.id,
    productId: v.product_id,
    lineItemType: lineItemTypeOf(v.product_type)!,
    name: itemName(v),
    productName: v.product_name,
    options: v.variant_attributes.map((a) => ({ name: a, value: v.attributes[a] ?? '' })),
    path: productPath(websiteId, v.store_page_slug, v.url_slug),
    unitPriceMinor,
    basePriceMinor: v.base_price_minor,
    onSale: v.on_sale,
    quantity,
    lineTotalMinor: unitPriceMinor * quantity,
    ...(shortage && { shortage }),
  };
}

/** A download's line: its price is the product's, and it has no stock to run short of. */
function productItemOf(websiteId: string, p: CartProduct, quantity: number): CartItem {
  const unitPriceMinor = p.on_sale ? p.sale_price_minor : p.base_price_minor;
  return {
    key: lineKey({ variantId: null, productId: p.id }),
    variantId: null,
    productId: p.id,
    lineItemType: lineItemTypeOf(p.product_type)!,
    name: p.product_name,
    productName: p.product_name,
    options: [],
    path: productPath(websiteId, p.store_page_slug, p.url_slug),
    unitPriceMinor,
    basePriceMinor: p.base_price_minor,
    onSale: p.on_sale,
    quantity,
    lineTotalMinor: unitPriceMinor * quantity,
  };
}

/** The cart's lines priced and checked against the catalog, read through `db` (a transaction at checkout). */
export async function viewCart(db: Db, websiteId: string, cart: Cart): Promise<CartView> {
  const ids = (pick: (l: Cart[number]) => string | null) => cart.flatMap((l) => pick(l) ?? []);
  const variants = new Map(
    (
      await selectCartVariants(
        db,
        websiteId,
        ids((l) => l.variantId),
      )
    ).map((v) => [v.id, v]),
  );
  const products = new Map(
    (
      await selectCartProducts(
        db,
        websiteId,
        ids((l) => l.productId),
      )
    ).map((p) => [p.id, p]),
  );
  const items: CartItem[] = [];
  const dropped: string[] = [];
  for (const line of cart) {
    if (line.productId !== null) {
      const p = products.get(line.productId);
      if (p?.for_sale && storeSells(p.product_type)) items.push(productItemOf(websiteId, p, line.quantity));
      else dropped.push(p ? p.product_name : 'An item');
      continue;
    }
    const v = variants.get(line.variantId!);
    if (v && sellable(v)) items.push(itemOf(websiteId, v, line.quantity));
    else dropped.push(v ? itemName(v) : 'An item');
  }
  return {
    items,
    subtotalMinor: items.reduce((sum, i) => sum + i.lineTotalMinor, 0),
    cart: cart.filter((l) => items.some((i) => i.key === lineKey(l))),
    dropped,
  };
}

/**
 * The cart with `quantity` of the variant added: refused with a message, the cart unchanged,
 * when the variant is not for sale in this store or there are not that many in stock.
 */
export async function addToCart(db: Db, websiteId: string, cart: Cart, variantId: string, quantity: number) {
  const id = variantId.trim().toLowerCase();
  const [v] = isVariantId(id) ? await selectCartVariants(db, websiteId, [id]) : [];
  if (!v || !v.for_sale) throw new NotFound('This item is not for sale in this store.');
  if (!storeSells(v.product_type)) {
    throw new ValidationError(`${v.product_name} cannot be bought through this store's cart.`);
  }
  const inCart = cart.find((l) => l.variantId === id)?.quantity ?? 0;
  const shortage = shortageMessage(v, Math.min(inCart + quantity, MAX_QUANTITY));
  if (shortage) throw new ValidationError(shortage);
  return addLine(cart, id, quantity);
}

/**
 * The cart with `quantity` of a product sold without variants (a download) added: refused, the
 * cart unchanged, when the store does not sell it (hidden, not a download, no file yet).
 */
export async function addProductToCart(
  db: Db,
  websiteId: string,
  cart: Cart,
  productId: string,
  quantity: number,
) {
  const key = `p${productId.trim().toLowerCase()}`;
  const line = lineOfKey(key);
  const [p] = line ? await selectCartProducts(db, websiteId, [line.productId!]) : [];
  if (!p || !p.for_sale || !storeSells(p.product_type)) {
    throw new NotFound('This item is not for sale in this store.');
  }
  return addLine(cart, key, quantity);
}
