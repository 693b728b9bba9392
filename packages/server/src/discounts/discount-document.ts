import { fromMinorUnits } from '../shared/money.ts';
import type { Criteria, DiscountRule, Template } from '../shared/discount-model.ts';
import type { DiscountRow, Status } from './discounts.repo.ts';
import type { DiscountT } from './discounts.schemas.ts';

/** A stored discount as the wire shows it (platform-surface 2.7.1), money as strings (0.4, Q6). */

/**
 * EXPIRED once validTo has passed or a limited discount's uses are used up (it can be redeemed no
 * more: Emporium's answer, the platform does not say); else SCHEDULED before validFrom; else
 * ACTIVE. The same rule in SQL: discounts.repo.ts `expired`.
 */
export function statusOf(row: DiscountRow, now: Date): Status {
  const usedUp =
    row.is_limited_uses && row.max_uses_allowed !== null && row.number_of_uses >= row.max_uses_allowed;
  if ((row.valid_to !== null && row.valid_to <= now) || usedUp) return 'EXPIRED';
  return row.valid_from > now ? 'SCHEDULED' : 'ACTIVE';
}

/** Hundredths of a percent as the wire's number: 1250 is 12.5. */
const percent = (hundredths: number) => hundredths / 100;

function criteriaJson(c: Criteria, currency: string): DiscountT['criteria'] {
  switch (c.type) {
    case 'ANY_ORDER':
      return { type: c.type };
    case 'CART_TOTAL':
      return { type: c.type, minimumCartTotal: fromMinorUnits(c.minimumCartTotalMinor, currency) };
    case 'PRODUCT':
      return { type: c.type, productId: c.productId, productName: c.productName };
    case 'BUY_X_GET_Y':
      return {
        type: c.type,
        requiredFullPriceQuantity: c.requiredFullPriceQuantity,
        eligibleForDiscountQuantity: c.eligibleForDiscountQuantity,
        criteriaAppliesTo: 'PRODUCT',
        criteriaProductIds: c.criteriaProductIds,
        rewardAppliesTo: 'PRODUCT',
        rewardProductIds: c.rewardProductIds,
      };
  }
}

function templateJson(t: Template, currency: string): DiscountT['template'] {
  switch (t.type) {
    case 'FIXED_AMOUNT':
      return { type: t.type, discountAmount: fromMinorUnits(t.discountAmountMinor, currency) };
    case 'PERCENTAGE':
      return { type: t.type, percentage: percent(t.percentageHundredths) };
    case 'BUY_X_GET_Y_FIXED_AMOUNT':
      return {
        type: t.type,
        discountAmount: fromMinorUnits(t.discountAmountMinor, currency),
        maxApplicationsPerCart: t.maxApplicationsPerCart,
      };
    case 'BUY_X_GET_Y_PERCENTAGE':
      return {
        type: t.type,
        discountPercentage: percent(t.discountPercentageHundredths),
        maxApplicationsPerCart: t.maxApplicationsPerCart,
      };
    case 'FREE_SHIPPING': {
      const s = t.selectedShippingOption;
      return {
        type: t.type,
        appliesToFulfillmentOptionType: t.appliesToFulfillmentOptionType,
        // Rebuilt field by field: jsonb keeps keys in its own order, not the wire's.
        selectedShippingOption: s && {
          shippingOptionId: s.shippingOptionId,
          shippingOptionName: s.shippingOptionName,
          isAllServicesSelected: s.isAllServicesSelected,
          selectedService: s.selectedService,
        },
      };
    }
  }
}

export function toDiscount(row: DiscountRow, now: Date): DiscountT {
  return {
    id: row.id,
    websiteId: row.website_id,
    name: row.name,
    criteria: criteriaJson(row.criteria, row.currency),
    template: templateJson(row.template, row.currency),
    trigger: row.promo_code === null ? { type: 'AUTO' } : { type: 'CODE', promoCode: row.promo_code },
    validFrom: row.valid_from.toISOString(),
    validTo: row.valid_to?.toISOString() ?? null,
    isLimitedUses: row.is_limited_uses,
    maxUsesAllowed: row.max_uses_allowed,
    isOncePerCustomer: row.is_once_per_customer,
    numberOfUses: row.number_of_uses,
    lastRedeemedAt: row.last_redeemed_at?.toISOString() ?? null,
    status: statusOf(row, now),
    subscriptionOptions: { type: row.subscription_options as 'EXCLUDED' },
    paymentPlanOptions: { type: row.payment_plan_options as 'NONE' },
  };
}

/** What pricing (discount-pricing.ts) needs of a stored discount. */
export function toRule(row: DiscountRow): DiscountRule {
  return {
    id: row.id,
    name: row.name,
    criteria: row.criteria,
    template: row.template,
    trigger: row.promo_code === null ? { type: 'AUTO' } : { type: 'CODE', promoCode: row.promo_code },
  };
}
