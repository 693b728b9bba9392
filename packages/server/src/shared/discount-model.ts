/**
 * A discount as Emporium keeps it (platform-surface 2.7.1, 2.7.2): money in integer minor units of
 * the website's currency, percentages in hundredths of a percent (12.5 % is 1250), so the
 * arithmetic of discount-pricing.ts stays exact. The database's `criteria` and `template` columns
 * hold these objects as they are; discount-document.ts turns them into the wire's.
 */

export const CRITERIA_TYPES = ['ANY_ORDER', 'CART_TOTAL', 'PRODUCT', 'BUY_X_GET_Y'] as const;
export const TEMPLATE_TYPES = [
  'FIXED_AMOUNT',
  'PERCENTAGE',
  'BUY_X_GET_Y_FIXED_AMOUNT',
  'BUY_X_GET_Y_PERCENTAGE',
  'FREE_SHIPPING',
] as const;
export const TRIGGER_TYPES = ['AUTO', 'CODE'] as const;
export const FULFILLMENT_OPTION_TYPES = ['SHIPPING', 'PICKUP', 'LOCAL_DELIVERY'] as const;

export type CriteriaType = (typeof CRITERIA_TYPES)[number];
export type TemplateType = (typeof TEMPLATE_TYPES)[number];
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export type Criteria =
  | { type: 'ANY_ORDER' }
  | { type: 'CART_TOTAL'; minimumCartTotalMinor: number }
  | { type: 'PRODUCT'; productId: string; productName: string }
  | {
      type: 'BUY_X_GET_Y';
      requiredFullPriceQuantity: number;
      eligibleForDiscountQuantity: number;
      criteriaProductIds: string[];
      rewardProductIds: string[];
    };

export interface SelectedShippingOption {
  shippingOptionId: string;
  shippingOptionName: string;
  isAllServicesSelected: boolean;
  selectedService: string | null;
}

export type Template =
  | { type: 'FIXED_AMOUNT'; discountAmountMinor: number }
  | { type: 'PERCENTAGE'; percentageHundredths: number }
  | { type: 'BUY_X_GET_Y_FIXED_AMOUNT'; discountAmountMinor: number; maxApplicationsPerCart: number }
  | { type: 'BUY_X_GET_Y_PERCENTAGE'; discountPercentageHundredths: number; maxApplicationsPerCart: number }
  | {
      type: 'FREE_SHIPPING';
      appliesToFulfillmentOptionType: (typeof FULFILLMENT_OPTION_TYPES)[number];
      /** null: every option of that type. */
      selectedShippingOption: SelectedShippingOption | null;
    };

export type Trigger = { type: 'AUTO' } | { type: 'CODE'; promoCode: string };

/**
 * Which templates each criterion takes (Emporium's table; the platform refuses "invalid
 * criteria/template pairings" without listing them, platform-surface 2.7.4): the BUY_X_GET_Y
 * templates need the BUY_X_GET_Y criterion and it needs one of them; FREE_SHIPPING goes with a
 * whole order (ANY_ORDER, CART_TOTAL), not with one product's units.
 */
export const PAIRINGS: Record<CriteriaType, readonly TemplateType[]> = {
  ANY_ORDER: ['FIXED_AMOUNT', 'PERCENTAGE', 'FREE_SHIPPING'],
  CART_TOTAL: ['FIXED_AMOUNT', 'PERCENTAGE', 'FREE_SHIPPING'],
  PRODUCT: ['FIXED_AMOUNT', 'PERCENTAGE'],
  BUY_X_GET_Y: ['BUY_X_GET_Y_FIXED_AMOUNT', 'BUY_X_GET_Y_PERCENTAGE'],
};

/** What pricing needs of a discount. */
export interface DiscountRule {
  id: string;
  name: string;
  criteria: Criteria;
  template: Template;
  trigger: Trigger;
}
