import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { priceCart, type PricedCart, type PromoOutcome } from '../discounts/discount-pricing.ts';
import { redeemedBy } from '../discounts/discount-redemptions.repo.ts';
import { statusOf } from '../discounts/discount-document.ts';
import { selectDiscountByCode } from '../discounts/discounts.repo.ts';
import { liveDiscounts } from '../discounts/discounts.service.ts';
import { standardShipping } from '../discounts/fulfillment-options.ts';
import type { OrderDiscount } from '../orders/web-order.ts';
import type { CartItem } from './cart.service.ts';
import { shipsLine } from '../shared/order-model.ts';

/**
 * The store's prices after discounts (discount-pricing.ts): the cart page's, the checkout's, and
 * the order's, computed again in the placing transaction. The buyer is known by the e-mail typed:
 * a once-per-customer discount already used with it is not usable (README, "Checkout").
 */
export async function priceStoreCart(
  deps: { db: Db; clock: Clock },
  website: { id: string; currency: string },
  items: Pick<CartItem, 'productId' | 'variantId' | 'unitPriceMinor' | 'quantity' | 'lineItemType'>[],
  promoCode: string | null,
  buyerEmail: string | null,
): Promise<PricedCart> {
  const live = await liveDiscounts(deps, website.id, promoCode);
  const email = buyerEmail?.trim().toLowerCase() || null;
  const once = live.filter((d) => d.oncePerCustomer).map((d) => d.rule.id);
  const used = email ? await redeemedBy(deps.db, once, email) : new Set<string>();
  const priced = priceCart({
    currency: website.currency,
    lines: items.map((i) => ({
      productId: i.productId,
      variantId: i.variantId,
      unitPriceMinor: i.unitPriceMinor,
      quantity: i.quantity,
    })),
    // A cart of services alone ships nothing (web-order.ts puts no shipping line on its order).
    shipping: items.some((i) => shipsLine(i.lineItemType))
      ? standardShipping(website.id, website.currency)
      : null,
    discounts: live.map((d) => ({ rule: d.rule, usable: !used.has(d.rule.id) })),
    promoCode,
  });
  if (priced.promoCode?.outcome !== 'UNKNOWN') return priced;
  const outcome = await whyNotLive(deps, website.id, priced.promoCode.code);
  return { ...priced, promoCode: { ...priced.promoCode, outcome } };
}

/** Why a code no live discount has is not applied: a discount has it but is not live, or none. */
async function whyNotLive(
  deps: { db: Db; clock: Clock },
  websiteId: string,
  code: string,
): Promise<PromoOutcome> {
  const row = await selectDiscountByCode(deps.db, websiteId, code);
  if (!row) return 'UNKNOWN';
  const now = deps.clock.now(websiteId);
  switch (statusOf(row, now)) {
    case 'SCHEDULED':
      return 'SCHEDULED';
    case 'EXPIRED':
      return row.valid_to !== null && row.valid_to <= now ? 'EXPIRED' : 'USED_UP';
    default:
      return 'UNKNOWN';
  }
}

/** The order's part of a priced cart (web-order.ts). */
export function orderDiscount(priced: PricedCart): OrderDiscount {
  return {
    lines: priced.discountLines.map((d) => ({
      name: d.name,
      promoCode: d.promoCode,
      amountMinor: d.amountMinor,
    })),
    merchandiseMinor: priced.merchandiseDiscountMinor,
    // Per line: a PRODUCT or BUY_X_GET_Y discount is on its eligible lines only (2.2.3).
    perLineMinor: priced.lineDiscountsMinor,
    shippingMinor: priced.shippingDiscountMinor,
  };
}

/** What the shopper is told of the code they entered, in plain words. */
export function promoMessage(code: string, outcome: PromoOutcome): string {
  switch (outcome) {
    case 'APPLIED':
      return `The code ${code} is applied.`;
    case 'UNKNOWN':
      return `We do not know the code ${code}.`;
    case 'SCHEDULED':
      return `The code ${code} is not valid yet.`;
    case 'EXPIRED':
      return `The code ${code} has expired.`;
    case 'USED_UP':
      return `The code ${code} is no longer available: it has been used as often as it may be.`;
    case 'NOT_USABLE':
      return `The code ${code} is no longer available to you: it has been used as often as it may be.`;
    case 'NOT_ELIGIBLE':
      return `Your cart does not qualify for the code ${code}.`;
    case 'BETTER_DISCOUNT_APPLIED':
      return `The code ${code} is not needed: a better automatic discount applies, and only one discount applies to an order.`;
  }
}
