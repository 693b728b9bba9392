import { Type, type Static } from 'typebox';
import { Money, MoneyInput } from '../http/common.schemas.ts';
import { SHIPPING_SERVICES } from './fulfillment-options.ts';
import { CRITERIA_TYPES, FULFILLMENT_OPTION_TYPES, TEMPLATE_TYPES } from '../shared/discount-model.ts';

/** Discounts v1 on the wire (platform-surface 2.7), fields in the order of 2.7.1. */

export const LIMITS = {
  name: 200,
  /** Product ids of a BUY_X_GET_Y list: Emporium's bound, the platform states none. */
  productIds: 100,
  /** Emporium's bounds (docs/discounts.md); the platform states neither. */
  discountsPerWebsite: 1000,
  autoDiscountsPerWebsite: 20,
  listLimit: 1000,
  defaultLimit: 50,
} as const;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Percentage = (description: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 100, description: `${description}; at most 2 decimals` });
const Quantity = Type.Integer({ minimum: 1, maximum: 1_000_000 });
const ProductIds = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: LIMITS.productIds,
  uniqueItems: true,
  description: 'product ids of this website',
});
const Time = Type.String({
  maxLength: 40,
  description:
    'RFC 3339 date-time with any offset, such as 2026-08-16T08:14:10Z or 2026-08-16T10:14:10+02:00',
});
const literal = <T extends string>(value: T) => Type.Literal(value);

/*
 * The request's criteria, template and trigger: one object each with every variant's fields
 * optional, so that a missing field is reported by name ("criteria.minimumCartTotal: is required
 * for CART_TOTAL", discount-input.ts) rather than as a union's mismatch.
 */
const CriteriaInput = Type.Object({
  type: Type.Enum([...CRITERIA_TYPES]),
  minimumCartTotal: Type.Optional(MoneyInput),
  productId: Type.Optional(
    Type.String({ maxLength: 100, description: 'PRODUCT: a product of this website' }),
  ),
  productName: Type.Optional(Nullable(Type.String({ description: 'read-only: ignored' }))),
  requiredFullPriceQuantity: Type.Optional(Quantity),
  eligibleForDiscountQuantity: Type.Optional(Quantity),
  criteriaAppliesTo: Type.Optional(literal('PRODUCT')),
  criteriaProductIds: Type.Optional(ProductIds),
  rewardAppliesTo: Type.Optional(literal('PRODUCT')),
  rewardProductIds: Type.Optional(ProductIds),
});

const SelectedShippingOption = Type.Object({
  shippingOptionId: Type.String({ maxLength: 100, description: 'GET /v1/fulfillments/fulfillment-options' }),
  shippingOptionName: Type.String({ maxLength: 200 }),
  isAllServicesSelected: Type.Optional(Type.Boolean({ description: 'default true' })),
  selectedService: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 100,
        description: `a service of the option: ${SHIPPING_SERVICES.join(', ')}`,
      }),
    ),
  ),
});

const TemplateInput = Type.Object({
  type: Type.Enum([...TEMPLATE_TYPES]),
  discountAmount: Type.Optional(MoneyInput),
  percentage: Type.Optional(Percentage('PERCENTAGE: 0 < p ≤ 100')),
  discountPercentage: Type.Optional(Percentage('BUY_X_GET_Y_PERCENTAGE: 0 < p ≤ 100')),
  maxApplicationsPerCart: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      description: 'BUY_X_GET_Y templates; 0 (default): no limit',
    }),
  ),
  appliesToFulfillmentOptionType: Type.Optional(
    Type.Enum([...FULFILLMENT_OPTION_TYPES], { description: 'FREE_SHIPPING; default SHIPPING' }),
  ),
  selectedShippingOption: Type.Optional(Nullable(SelectedShippingOption)),
});

const TriggerInput = Type.Object({
  type: Type.Enum(['AUTO', 'CODE']),
  promoCode: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 200,
        description: 'CODE: 1 to 50 letters, digits, _ or -; unique in the website whatever its case',
      }),
    ),
  ),
});

const SubscriptionOptions = Type.Object({
  type: Type.Enum(['EXCLUDED', 'ALL_PAYMENTS', 'LIMITED_PAYMENTS']),
});
const PaymentPlanOptions = Type.Object({ type: Type.Enum(['NONE', 'ALL_PAYMENTS']) });
const ReadOnly = Type.Optional(Type.Unknown({ description: 'read-only: ignored' }));

/** POST and PUT: the Discount without its read-only fields, which are ignored if sent. */
export const DiscountBody = Type.Object({
  id: ReadOnly,
  websiteId: ReadOnly,
  name: Type.String({ minLength: 1, maxLength: LIMITS.name }),
  criteria: CriteriaInput,
  template: TemplateInput,
  trigger: TriggerInput,
  validFrom: Time,
  validTo: Type.Optional(Nullable(Time)),
  isLimitedUses: Type.Optional(Type.Boolean({ description: 'default false' })),
  maxUsesAllowed: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'required when isLimitedUses' }),
    ),
  ),
  isOncePerCustomer: Type.Optional(Type.Boolean({ description: 'default false' })),
  numberOfUses: ReadOnly,
  lastRedeemedAt: ReadOnly,
  status: ReadOnly,
  subscriptionOptions: Type.Optional(Nullable(SubscriptionOptions)),
  paymentPlanOptions: Type.Optional(Nullable(PaymentPlanOptions)),
});

const OutSelected = Type.Object({
  shippingOptionId: Type.String(),
  shippingOptionName: Type.String(),
  isAllServicesSelected: Type.Boolean(),
  selectedService: Nullable(Type.String()),
});

export const Discount = Type.Object({
  id: Type.String(),
  websiteId: Type.String(),
  name: Type.String(),
  criteria: Type.Union([
    Type.Object({ type: literal('ANY_ORDER') }),
    Type.Object({ type: literal('CART_TOTAL'), minimumCartTotal: Money }),
    Type.Object({ type: literal('PRODUCT'), productId: Type.String(), productName: Type.String() }),
    Type.Object({
      type: literal('BUY_X_GET_Y'),
      requiredFullPriceQuantity: Type.Integer(),
      eligibleForDiscountQuantity: Type.Integer(),
      criteriaAppliesTo: literal('PRODUCT'),
      criteriaProductIds: Type.Array(Type.String()),
      rewardAppliesTo: literal('PRODUCT'),
      rewardProductIds: Type.Array(Type.String()),
    }),
  ]),
  template: Type.Union([
    Type.Object({ type: literal('FIXED_AMOUNT'), discountAmount: Money }),
    Type.Object({ type: literal('PERCENTAGE'), percentage: Type.Number() }),
    Type.Object({
      type: literal('BUY_X_GET_Y_FIXED_AMOUNT'),
      discountAmount: Money,
      maxApplicationsPerCart: Type.Integer(),
    }),
    Type.Object({
      type: literal('BUY_X_GET_Y_PERCENTAGE'),
      discountPercentage: Type.Number(),
      maxApplicationsPerCart: Type.Integer(),
    }),
    Type.Object({
      type: literal('FREE_SHIPPING'),
      appliesToFulfillmentOptionType: Type.Enum([...FULFILLMENT_OPTION_TYPES]),
      selectedShippingOption: Nullable(OutSelected),
    }),
  ]),
  trigger: Type.Union([
    Type.Object({ type: literal('AUTO') }),
    Type.Object({ type: literal('CODE'), promoCode: Type.String() }),
  ]),
  validFrom: Type.String(),
  validTo: Nullable(Type.String()),
  isLimitedUses: Type.Boolean(),
  maxUsesAllowed: Nullable(Type.Integer()),
  isOncePerCustomer: Type.Boolean(),
  numberOfUses: Type.Integer(),
  lastRedeemedAt: Nullable(Type.String()),
  status: Type.Enum(['ACTIVE', 'SCHEDULED', 'EXPIRED']),
  subscriptionOptions: SubscriptionOptions,
  paymentPlanOptions: PaymentPlanOptions,
});

export const DiscountEnvelope = Type.Object({ discount: Discount });

export const DiscountPage = Type.Object({
  discounts: Type.Array(Discount),
  hasNextPage: Type.Boolean(),
  hasPreviousPage: Type.Boolean(),
});

const list = (names: readonly string[]) =>
  Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: `comma-separated, of ${names.join(', ')}; every one by default`,
    }),
  );

export const ListDiscountsQuery = Type.Object({
  sortBy: Type.Optional(
    Type.Enum(['CREATED_ON', 'PROMO_CODE', 'USES_COUNT'], { description: 'default CREATED_ON' }),
  ),
  sortDirection: Type.Optional(Type.Enum(['ASCENDING', 'DESCENDING'], { description: 'default DESCENDING' })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'in the name and the promo code' })),
  status: Type.Optional(Type.Enum(['ALL', 'ACTIVE', 'EXPIRED', 'SCHEDULED'], { description: 'default ALL' })),
  criteria: list(CRITERIA_TYPES),
  template: list(TEMPLATE_TYPES),
  trigger: list(['AUTO', 'CODE']),
  limitedUseOnly: Type.Optional(Type.Enum(['true', 'false'], { description: 'default false' })),
  offset: Type.Optional(Type.String({ maxLength: 12, description: '0 or more; default 0' })),
  limit: Type.Optional(Type.String({ maxLength: 12, description: `1 to ${LIMITS.listLimit}; default 50` })),
});

export const DiscountIdParams = Type.Object({ discountId: Type.String() });

export type DiscountBodyT = Static<typeof DiscountBody>;
export type DiscountT = Static<typeof Discount>;
export type ListDiscountsQueryT = Static<typeof ListDiscountsQuery>;
