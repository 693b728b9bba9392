import { fromMinorUnits, type Money } from '../shared/money.ts';
import type { DiscountRule, Template } from '../shared/discount-model.ts';
import { buyXGetYUnits } from './buy-x-get-y.ts';

/**
 * The discount arithmetic of a cart (platform-surface 2.7): pure, no database, no clock. Money
 * is integer minor units of the cart's currency throughout; no float touches it.
 *
 * Rules Emporium follows where the platform states none (docs/discounts.md):
 * - At most one discount applies to an order: the one that saves the shopper the most among the
 *   usable AUTO discounts and the CODE discount whose promo code the shopper entered. On equal
 *   savings the entered code wins, then the discount given first.
 * - A percentage is taken of the eligible merchandise total and rounded half up once, to the
 *   minor unit. FIXED_AMOUNT is taken once from the order (ANY_ORDER, CART_TOTAL) or from each
 *   unit of the product (PRODUCT); BUY_X_GET_Y templates from each rewarded unit.
 * - BUY_X_GET_Y rewards the cheapest eligible units, as many applications as the cart allows up
 *   to maxApplicationsPerCart (0: no limit); see buy-x-get-y.ts.
 * - FREE_SHIPPING takes off the whole shipping charge; the shipping line keeps its price and the
 *   discount line carries the saving (as a transaction's ShippingLineItem.discountAmount does).
 * - No discount takes a line below zero or the merchandise total below zero.
 */

export interface CartLine {
  /** The catalog product, or null for a line of no product. */
  productId: string | null;
  variantId: string | null;
  /** What one unit costs before any discount: the sale price when on sale. */
  unitPriceMinor: number;
  quantity: number;
}

export interface CartShipping {
  /** The fulfillment option chosen (fulfillment-options.ts). */
  optionId: string;
  optionType: 'SHIPPING' | 'PICKUP' | 'LOCAL_DELIVERY';
  /** The carrier service chosen, when the option has services. */
  service: string | null;
  amountMinor: number;
}

export interface LiveDiscount {
  rule: DiscountRule;
  /**
   * Whether this buyer may still use it: false when its uses are used up or it is once per
   * customer and this buyer used it. The caller knows the buyer; pricing does not.
   */
  usable: boolean;
}

export interface PricingInput {
  /** The cart's currency (the website's): the discounts' amounts are in its minor units. */
  currency: string;
  lines: CartLine[];
  /** The shipping charge, null when nothing is shipped. */
  shipping: CartShipping | null;
  /** The live discounts (ACTIVE now): every AUTO one, and the CODE one of the code entered, if any. */
  discounts: LiveDiscount[];
  /** The promo code the shopper entered, as typed; matched case-insensitively. */
  promoCode: string | null;
}

/**
 * What became of the code entered: APPLIED; UNKNOWN (no live discount has it); NOT_USABLE (used
 * up, or once per customer and used); NOT_ELIGIBLE (the cart does not meet its conditions);
 * BETTER_DISCOUNT_APPLIED (an automatic discount saves more, and only one applies). Pricing knows
 * only the live discounts; the store tells an UNKNOWN code apart when a discount has it that is
 * SCHEDULED, EXPIRED (past validTo) or USED_UP (its limited uses all taken).
 */
export type PromoOutcome =
  | 'APPLIED'
  | 'UNKNOWN'
  | 'NOT_USABLE'
  | 'NOT_ELIGIBLE'
  | 'BETTER_DISCOUNT_APPLIED'
  | 'SCHEDULED'
  | 'EXPIRED'
  | 'USED_UP';

/** An order's discount line (platform-surface 2.1.4 `discountLines`), amount in minor units. */
export interface DiscountLine {
  discountId: string;
  name: string;
  promoCode: string | null;
  amountMinor: number;
  /** amountMinor as the order's Money. */
  amount: Money;
}

export interface PricedCart {
  /** Σ unit price × quantity. */
  subtotalMinor: number;
  /** Taken off the merchandise: at most subtotalMinor. */
  merchandiseDiscountMinor: number;
  /** Each line's share of merchandiseDiscountMinor, in the order of the input lines. */
  lineDiscountsMinor: number[];
  /** The shipping charge as given (0 without shipping). */
  shippingMinor: number;
  /** Taken off the shipping: the whole charge under FREE_SHIPPING, else 0. */
  shippingDiscountMinor: number;
  /** merchandiseDiscountMinor + shippingDiscountMinor: the order's discountTotal. */
  discountTotalMinor: number;
  /** subtotal + shipping − discountTotal, before tax: never below the shipping left to pay. */
  totalMinor: number;
  /** Zero or one line: the discount applied. */
  discountLines: DiscountLine[];
  /** null when no code was entered. */
  promoCode: { code: string; outcome: PromoOutcome } | null;
}

interface Saving {
  merchandise: number;
  /** Per input line, summing to merchandise. */
  perLine: number[];
  shipping: number;
}

const lineTotal = (line: CartLine) => line.unitPriceMinor * line.quantity;

/** a × hundredths / 10000, rounded half up, exactly (BigInt: a × hundredths may pass 2^53). */
export function percentOf(amountMinor: number, hundredths: number): number {
  return Number((BigInt(amountMinor) * BigInt(hundredths) * 2n + 10000n) / 20000n);
}

/**
 * Splits `total` over lines in proportion to `weights` (largest remainder, ties to the first):
 * the shares add up to `total` exactly and none passes its weight when total ≤ Σ weights.
 */
export function allocate(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (total === 0 || sum === 0) return weights.map(() => 0);
  const big = weights.map((w) => BigInt(w) * BigInt(total));
  const shares = big.map((b) => Number(b / BigInt(sum)));
  const rest = big.map((b, i) => ({ i, r: b % BigInt(sum) }));
  let left = total - shares.reduce((a, b) => a + b, 0);
  rest.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of rest) {
    if (left === 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}

/** What the template takes off `eligible` weights (per line value in minor units). */
function takeOff(
  template: Template,
  eligible: number[],
  perUnit: { units: number[]; prices: number[] } | null,
) {
  const value = eligible.reduce((a, b) => a + b, 0);
  switch (template.type) {
    case 'PERCENTAGE':
      return allocate(percentOf(value, template.percentageHundredths), eligible);
    case 'BUY_X_GET_Y_PERCENTAGE':
      return allocate(percentOf(value, template.discountPercentageHundredths), eligible);
    case 'FIXED_AMOUNT':
    case 'BUY_X_GET_Y_FIXED_AMOUNT':
      // Per unit (PRODUCT, BUY_X_GET_Y): never more than the unit's price.
      if (perUnit) {
        return perUnit.units.map((n, i) => n * Math.min(template.discountAmountMinor, perUnit.prices[i]!));
      }
      return allocate(Math.min(template.discountAmountMinor, value), eligible);
    case 'FREE_SHIPPING':
      return eligible.map(() => 0);
  }
}

function freeShipping(template: Template, shipping: CartShipping | null): number {
  if (template.type !== 'FREE_SHIPPING' || !shipping) return 0;
  if (template.appliesToFulfillmentOptionType !== shipping.optionType) return 0;
  const chosen = template.selectedShippingOption;
  if (chosen) {
    if (chosen.shippingOptionId !== shipping.optionId) return 0;
    if (!chosen.isAllServicesSelected && chosen.selectedService !== shipping.service) return 0;
  }
  return shipping.amountMinor;
}

/** What one discount would save on this cart. */
export function savingOf(rule: DiscountRule, lines: CartLine[], shipping: CartShipping | null): Saving {
  const zero: Saving = { merchandise: 0, perLine: lines.map(() => 0), shipping: 0 };
  const { criteria, template } = rule;
  const subtotal = lines.reduce((sum, line) => sum + lineTotal(line), 0);
  let perLine: number[] = [];
  switch (criteria.type) {
    case 'ANY_ORDER':
    case 'CART_TOTAL': {
      if (criteria.type === 'CART_TOTAL' && subtotal < criteria.minimumCartTotalMinor) return zero;
      perLine = takeOff(template, lines.map(lineTotal), null);
      break;
    }
    case 'PRODUCT': {
      const units = lines.map((line) => (line.productId === criteria.productId ? line.quantity : 0));
      const prices = lines.map((line) => line.unitPriceMinor);
      perLine = takeOff(
        template,
        lines.map((line, i) => units[i]! * line.unitPriceMinor),
        { units, prices },
      );
      break;
    }
    case 'BUY_X_GET_Y': {
      const maxApplications = 'maxApplicationsPerCart' in template ? template.maxApplicationsPerCart : 0;
      const units = buyXGetYUnits(criteria, maxApplications, lines);
      const prices = lines.map((line) => line.unitPriceMinor);
      perLine = takeOff(
        template,
        lines.map((line, i) => units[i]! * line.unitPriceMinor),
        { units, prices },
      );
      break;
    }
  }
  // Never below zero: a line gives at most what it costs (the total follows from the lines).
  perLine = perLine.map((amount, i) => Math.min(amount, lineTotal(lines[i]!)));
  const merchandise = perLine.reduce((a, b) => a + b, 0);
  return { merchandise, perLine, shipping: freeShipping(template, shipping) };
}

const sameCode = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Prices a cart: the one discount that applies (see the rules at the top of this file), the
 * order's discount line, its totals, and what became of the code entered.
 *
 * For the checkout: pass the cart's lines at the prices charged (sale prices included), the
 * shipping charge with the option chosen (fulfillment-options.ts `standardShipping`), the live discounts (discounts.service.ts
 * `liveDiscounts`) each with whether this buyer may still use it, and the code typed. Put
 * `discountLines` (amounts as Money of the cart's currency) and the totals on the order;
 * `lineDiscountsMinor` is each line's share for the transaction document's sales lines; record a
 * use of `discountLines[0].discountId` when the order is placed.
 */
export function priceCart(input: PricingInput): PricedCart {
  const { lines, shipping, promoCode } = input;
  const subtotal = lines.reduce((sum, line) => sum + lineTotal(line), 0);
  const shippingMinor = shipping?.amountMinor ?? 0;
  const entered = promoCode?.trim() ? promoCode.trim() : null;
  const isEntered = (d: LiveDiscount) =>
    entered !== null && d.rule.trigger.type === 'CODE' && sameCode(d.rule.trigger.promoCode, entered);
  const candidates = input.discounts.filter((d) => d.rule.trigger.type === 'AUTO' || isEntered(d));

  let best: { discount: LiveDiscount; saving: Saving; total: number } | null = null;
  let codeOutcome: PromoOutcome = 'UNKNOWN';
  for (const discount of candidates) {
    const code = isEntered(discount);
    if (!discount.usable) {
      if (code) codeOutcome = 'NOT_USABLE';
      continue;
    }
    const saving = savingOf(discount.rule, lines, shipping);
    const total = saving.merchandise + saving.shipping;
    if (code) codeOutcome = total > 0 ? 'BETTER_DISCOUNT_APPLIED' : 'NOT_ELIGIBLE';
    if (total <= 0) continue;
    if (!best || total > best.total || (total === best.total && code && !isEntered(best.discount))) {
      best = { discount, saving, total };
    }
  }
  if (best && isEntered(best.discount)) codeOutcome = 'APPLIED';

  const merchandise = best?.saving.merchandise ?? 0;
  const shippingDiscount = best?.saving.shipping ?? 0;
  const discountTotal = merchandise + shippingDiscount;
  const rule = best?.discount.rule;
  return {
    subtotalMinor: subtotal,
    merchandiseDiscountMinor: merchandise,
    lineDiscountsMinor: best?.saving.perLine ?? lines.map(() => 0),
    shippingMinor,
    shippingDiscountMinor: shippingDiscount,
    discountTotalMinor: discountTotal,
    totalMinor: subtotal + shippingMinor - discountTotal,
    discountLines: rule
      ? [
          {
            discountId: rule.id,
            name: rule.name,
            promoCode: rule.trigger.type === 'CODE' ? rule.trigger.promoCode : null,
            amountMinor: discountTotal,
            amount: fromMinorUnits(discountTotal, input.currency),
          },
        ]
      : [],
    promoCode: entered === null ? null : { code: entered, outcome: codeOutcome },
  };
}
