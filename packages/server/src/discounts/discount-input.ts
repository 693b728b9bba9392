import { toMinorUnits } from '../shared/money.ts';
import { ValidationError } from '../shared/errors.ts';
import { parseDateTime } from '../shared/iso-time.ts';
import { PAIRINGS, type Criteria, type Template, type Trigger } from '../shared/discount-model.ts';
import type { DiscountBodyT } from './discounts.schemas.ts';
import { fulfillmentOptions } from './fulfillment-options.ts';

/** A POST or PUT body checked and turned into the stored model (discount-model.ts). */

export interface DiscountDraft {
  name: string;
  /** A PRODUCT criterion's productName is filled in by the service from the catalog. */
  criteria: Criteria;
  template: Template;
  trigger: Trigger;
  validFrom: Date;
  validTo: Date | null;
  isLimitedUses: boolean;
  maxUsesAllowed: number | null;
  isOncePerCustomer: boolean;
  subscriptionOptions: string;
  paymentPlanOptions: string;
}

const PROMO_CODE = /^[A-Za-z0-9_-]{1,50}$/;

/** An RFC 3339 date-time (2.7.1); year 0 is a date to JavaScript but not to PostgreSQL, so it is refused here. */
function parseTime(value: string, field: string): Date {
  const time = parseDateTime(value, field);
  if (time.getUTCFullYear() < 1) throw new ValidationError(`${field}: the year must be 0001 or later`);
  return time;
}

const missing = (field: string, forType: string) =>
  new ValidationError(`${field}: is required for ${forType}`, 'MISSING_ARGUMENT');

function required<T>(value: T | undefined | null, field: string, forType: string): T {
  if (value === undefined || value === null) throw missing(field, forType);
  return value;
}

/** A percentage as hundredths of a percent: 12.5 is 1250; more than 2 decimals is refused. */
function hundredths(value: number, field: string): number {
  const scaled = Math.round(value * 100);
  if (Math.abs(scaled - value * 100) > 1e-6) throw new ValidationError(`${field}: at most 2 decimal places`);
  return scaled;
}

function parseCriteria(input: DiscountBodyT['criteria'], currency: string): Criteria {
  const { type } = input;
  switch (type) {
    case 'ANY_ORDER':
      return { type };
    case 'CART_TOTAL': {
      const money = required(input.minimumCartTotal, 'criteria.minimumCartTotal', type);
      return { type, minimumCartTotalMinor: toMinorUnits(money, currency, 'criteria.minimumCartTotal') };
    }
    case 'PRODUCT':
      return { type, productId: required(input.productId, 'criteria.productId', type), productName: '' };
    case 'BUY_X_GET_Y':
      return {
        type,
        requiredFullPriceQuantity: required(
          input.requiredFullPriceQuantity,
          'criteria.requiredFullPriceQuantity',
          type,
        ),
        eligibleForDiscountQuantity: required(
          input.eligibleForDiscountQuantity,
          'criteria.eligibleForDiscountQuantity',
          type,
        ),
        criteriaProductIds: required(input.criteriaProductIds, 'criteria.criteriaProductIds', type),
        rewardProductIds: required(input.rewardProductIds, 'criteria.rewardProductIds', type),
      };
  }
}

function parseTemplate(input: DiscountBodyT['template'], currency: string, websiteId: string): Template {
  const { type } = input;
  const amount = () => {
    const minor = toMinorUnits(
      required(input.discountAmount, 'template.discountAmount', type),
      currency,
      'template.discountAmount',
    );
    if (minor === 0) throw new ValidationError('template.discountAmount: must be more than 0');
    return minor;
  };
  switch (type) {
    case 'FIXED_AMOUNT':
      return { type, discountAmountMinor: amount() };
    case 'PERCENTAGE':
      return {
        type,
        percentageHundredths: hundredths(
          required(input.percentage, 'template.percentage', type),
          'template.percentage',
        ),
      };
    case 'BUY_X_GET_Y_FIXED_AMOUNT':
      return {
        type,
        discountAmountMinor: amount(),
        maxApplicationsPerCart: input.maxApplicationsPerCart ?? 0,
      };
    case 'BUY_X_GET_Y_PERCENTAGE':
      return {
        type,
        discountPercentageHundredths: hundredths(
          required(input.discountPercentage, 'template.discountPercentage', type),
          'template.discountPercentage',
        ),
        maxApplicationsPerCart: input.maxApplicationsPerCart ?? 0,
      };
    case 'FREE_SHIPPING': {
      const optionType = input.appliesToFulfillmentOptionType ?? 'SHIPPING';
      const options = fulfillmentOptions(websiteId).filter((o) => o.type === optionType);
      // Emporium's store only ships (fulfillment-options.ts): a discount on pickup could never apply.
      if (options.length === 0) {
        throw new ValidationError(
          `template.appliesToFulfillmentOptionType: this website has no ${optionType} fulfillment option`,
        );
      }
      const chosen = input.selectedShippingOption;
      if (!chosen) return { type, appliesToFulfillmentOptionType: optionType, selectedShippingOption: null };
      const option = options.find((o) => o.id === chosen.shippingOptionId);
      if (!option) {
        throw new ValidationError(
          'template.selectedShippingOption.shippingOptionId: not a fulfillment option of this website ' +
            '(GET /v1/fulfillments/fulfillment-options)',
        );
      }
      const all = chosen.isAllServicesSelected ?? true;
      const service = chosen.selectedService ?? null;
      if (all && service !== null) {
        throw new ValidationError(
          'template.selectedShippingOption.selectedService: must be null when isAllServicesSelected',
        );
      }
      if (!all && !option.availableServices.some((s) => s.name === service)) {
        throw new ValidationError(
          `template.selectedShippingOption.selectedService: not a service of "${option.name}"` +
            (option.availableServices.length === 0 ? ', which has none; select all services' : ''),
        );
      }
      return {
        type,
        appliesToFulfillmentOptionType: optionType,
        // The name is the option's own: the one sent is a label the platform echoes.
        selectedShippingOption: {
          shippingOptionId: option.id,
          shippingOptionName: option.name,
          isAllServicesSelected: all,
          selectedService: service,
        },
      };
    }
  }
}

function parseTrigger(input: DiscountBodyT['trigger']): Trigger {
  if (input.type === 'AUTO') {
    if (input.promoCode) throw new ValidationError('trigger.promoCode: an AUTO trigger takes no promo code');
    return { type: 'AUTO' };
  }
  const code = required(input.promoCode, 'trigger.promoCode', 'CODE');
  if (!PROMO_CODE.test(code)) {
    throw new ValidationError('trigger.promoCode: 1 to 50 letters, digits, _ or - (^[A-Za-z0-9_\\-]{1,50}$)');
  }
  return { type: 'CODE', promoCode: code };
}

/** Checks a whole discount (POST and PUT alike); product ids are checked against the catalog later. */
export function parseDiscount(body: DiscountBodyT, currency: string, websiteId: string): DiscountDraft {
  const name = body.name.trim();
  if (!name) throw new ValidationError('name: must not be empty');
  const criteria = parseCriteria(body.criteria, currency);
  const template = parseTemplate(body.template, currency, websiteId);
  if (!PAIRINGS[criteria.type].includes(template.type)) {
    throw new ValidationError(
      `template.type: ${template.type} cannot go with criteria ${criteria.type}; ` +
        `${criteria.type} takes ${PAIRINGS[criteria.type].join(', ')}`,
    );
  }
  const validFrom = parseTime(body.validFrom, 'validFrom');
  const validTo = body.validTo ? parseTime(body.validTo, 'validTo') : null;
  if (validTo && validTo <= validFrom) throw new ValidationError('validTo: must be later than validFrom');
  const isLimitedUses = body.isLimitedUses ?? false;
  const maxUsesAllowed = body.maxUsesAllowed ?? null;
  if (isLimitedUses && maxUsesAllowed === null) throw missing('maxUsesAllowed', 'isLimitedUses true');
  if (!isLimitedUses && maxUsesAllowed !== null) {
    throw new ValidationError('maxUsesAllowed: must be null unless isLimitedUses is true');
  }
  return {
    name,
    criteria,
    template,
    trigger: parseTrigger(body.trigger),
    validFrom,
    validTo,
    isLimitedUses,
    maxUsesAllowed,
    isOncePerCustomer: body.isOncePerCustomer ?? false,
    subscriptionOptions: body.subscriptionOptions?.type ?? 'EXCLUDED',
    paymentPlanOptions: body.paymentPlanOptions?.type ?? 'NONE',
  };
}

/** The product ids a discount names, each once, for the check that they are the website's. */
export function productIdsOf(criteria: Criteria): string[] {
  if (criteria.type === 'PRODUCT') return [criteria.productId];
  if (criteria.type === 'BUY_X_GET_Y')
    return [...new Set([...criteria.criteriaProductIds, ...criteria.rewardProductIds])];
  return [];
}
