import { Type, type Static } from 'typebox';
import { MoneyInput, Pagination } from '../http/common.schemas.ts';
import { FULFILLMENT_STATUSES } from '../shared/order-model.ts';

/** Limits of platform-surface 2.1.3, and Emporium's own where the platform states none. */
export const LIMITS = {
  channelName: 30,
  externalOrderReference: 200,
  /** Not stated by the platform: far more than a real order has. */
  lineItems: 250,
  quantity: 1_000_000,
  fulfillments: 100,
  shippingLines: 1,
  method: 100,
  shipmentText: 100,
  trackingUrl: 2000,
  /** Emporium's own bounds on free text the platform leaves open. */
  text: 500,
  discountLines: 50,
  email: 254,
} as const;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

export const AddressInput = Type.Object({
  firstName: Type.Optional(Nullable(text(LIMITS.text))),
  lastName: Type.Optional(Nullable(text(LIMITS.text))),
  address1: Type.Optional(Nullable(text(LIMITS.text))),
  address2: Type.Optional(Nullable(text(LIMITS.text))),
  city: Type.Optional(Nullable(text(LIMITS.text))),
  state: Type.Optional(Nullable(text(LIMITS.text))),
  countryCode: Type.Optional(Nullable(text(LIMITS.text))),
  postalCode: Type.Optional(Nullable(text(LIMITS.text))),
  phone: Type.Optional(Nullable(text(LIMITS.text))),
});

const IsoTime = Type.String({
  maxLength: 40,
  description: 'ISO 8601 UTC date-time, such as 2026-08-16T08:14:10Z',
});

export const ShipmentInput = Type.Object({
  shipDate: IsoTime,
  carrierName: text(LIMITS.shipmentText),
  service: text(LIMITS.shipmentText),
  trackingNumber: text(LIMITS.shipmentText),
  trackingUrl: Type.Optional(
    Nullable(Type.String({ maxLength: LIMITS.trackingUrl, description: 'a valid http(s) URL' })),
  ),
});

export const LineItemInput = Type.Object({
  lineItemType: Type.Union([Type.Literal('PHYSICAL_PRODUCT'), Type.Literal('CUSTOM')]),
  quantity: Type.Integer({ minimum: 1, maximum: LIMITS.quantity }),
  unitPricePaid: MoneyInput,
  variantId: Type.Optional(
    Nullable(Type.String({ maxLength: 100, description: 'required for PHYSICAL_PRODUCT' })),
  ),
  nonSaleUnitPrice: Type.Optional(Nullable(MoneyInput)),
  title: Type.Optional(
    Nullable(text(LIMITS.text, 'the name of a CUSTOM line; must be null or omitted on PHYSICAL_PRODUCT')),
  ),
});

export const CreateOrderBody = Type.Object({
  channelName: text(LIMITS.channelName, 'the channel the order was placed on'),
  externalOrderReference: text(LIMITS.externalOrderReference, "the channel's reference of the order"),
  createdOn: IsoTime,
  priceTaxInterpretation: Type.Union([Type.Literal('INCLUSIVE'), Type.Literal('EXCLUSIVE')]),
  grandTotal: MoneyInput,
  lineItems: Type.Array(LineItemInput, { minItems: 1, maxItems: LIMITS.lineItems }),
  fulfillments: Type.Array(ShipmentInput, {
    maxItems: LIMITS.fulfillments,
    description: 'required, [] when none',
  }),
  customerEmail: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.email }))),
  billingAddress: Type.Optional(Nullable(AddressInput)),
  shippingAddress: Type.Optional(Nullable(AddressInput)),
  inventoryBehavior: Type.Optional(
    Type.Union([Type.Literal('DEDUCT'), Type.Literal('SKIP')], {
      description: 'DEDUCT takes the lines from stock, refusing the order when any is short; default SKIP',
    }),
  ),
  fulfillmentStatus: Type.Optional(Type.Union([Type.Literal('PENDING'), Type.Literal('FULFILLED')])),
  fulfilledOn: Type.Optional(Nullable(IsoTime)),
  shopperFulfillmentNotificationBehavior: Type.Optional(
    Type.Union([Type.Literal('SEND'), Type.Literal('SKIP')]),
  ),
  shippingLines: Type.Optional(
    Type.Array(Type.Object({ method: text(LIMITS.method), amount: MoneyInput }), {
      maxItems: LIMITS.shippingLines,
    }),
  ),
  discountLines: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.Optional(Nullable(text(LIMITS.text))),
        promoCode: Type.Optional(Nullable(text(LIMITS.text))),
        amount: Type.Optional(Nullable(MoneyInput)),
      }),
      { maxItems: LIMITS.discountLines },
    ),
  ),
  subtotal: Type.Optional(Nullable(MoneyInput)),
  shippingTotal: Type.Optional(Nullable(MoneyInput)),
  discountTotal: Type.Optional(Nullable(MoneyInput)),
  taxTotal: Type.Optional(Nullable(MoneyInput)),
});

export const FulfillBody = Type.Object({
  shouldSendNotification: Type.Optional(Type.Boolean()),
  shipments: Type.Optional(Type.Array(ShipmentInput, { maxItems: LIMITS.fulfillments })),
});

export const OrderHeaders = Type.Object({
  'idempotency-key': Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]+$',
    description:
      'a new key for each order, 1 to 64 letters, digits, `-` or `_`; resending it with the same body within 48 hours answers with the same order, created once',
  }),
});

export const ListOrdersQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  modifiedAfter: Type.Optional(Type.String()),
  modifiedBefore: Type.Optional(Type.String()),
  fulfillmentStatus: Type.Optional(Type.String({ description: FULFILLMENT_STATUSES.join(', ') })),
  customerId: Type.Optional(Type.String()),
  paymentStates: Type.Optional(
    Type.String({
      description: 'comma-separated; default NOT_CHARGED,AUTHORIZED,PAID,REFUNDED',
    }),
  ),
});

export const OrderIdParams = Type.Object({ id: Type.String() });

const Money = Type.Object({ currency: Type.String(), value: Type.String() });
const Address = Type.Object({
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  address1: Nullable(Type.String()),
  address2: Nullable(Type.String()),
  city: Nullable(Type.String()),
  state: Nullable(Type.String()),
  countryCode: Nullable(Type.String()),
  postalCode: Nullable(Type.String()),
  phone: Nullable(Type.String()),
});
const Shipment = Type.Object({
  shipDate: Type.String(),
  carrierName: Type.String(),
  service: Type.String(),
  trackingNumber: Type.String(),
  trackingUrl: Nullable(Type.String()),
});
const Label = Type.Object({ label: Type.String(), value: Type.String() });

/** The Order object (platform-surface 2.1.4), for the OpenAPI description and the SDK's types. */
export const Order = Type.Object({
  id: Type.String(),
  orderNumber: Type.String(),
  createdOn: Type.String(),
  modifiedOn: Type.String(),
  channel: Type.String({ description: 'web, pos, or external for an imported order' }),
  testmode: Type.Boolean(),
  customerEmail: Nullable(Type.String()),
  customerId: Nullable(Type.String({ description: "the buyer's profile id (GET /1.0/profiles/{id})" })),
  billingAddress: Nullable(Address),
  shippingAddress: Nullable(Address),
  fulfillmentStatus: Type.String({ description: FULFILLMENT_STATUSES.join(', ') }),
  lineItems: Type.Array(
    Type.Object({
      id: Type.String(),
      variantId: Nullable(Type.String()),
      sku: Nullable(Type.String()),
      weight: Type.Number(),
      width: Type.Number(),
      length: Type.Number(),
      height: Type.Number(),
      productId: Nullable(Type.String()),
      productName: Type.String(),
      quantity: Type.Integer(),
      unitPricePaid: Money,
      variantOptions: Nullable(Type.Array(Type.Object({ optionName: Type.String(), value: Type.String() }))),
      customizations: Nullable(Type.Array(Label)),
      imageUrl: Nullable(Type.String()),
      lineItemType: Type.String(),
    }),
  ),
  internalNotes: Type.Array(Type.Object({ content: Type.String() })),
  shippingLines: Type.Array(Type.Object({ method: Type.String(), amount: Money })),
  discountLines: Type.Array(
    Type.Object({
      description: Nullable(Type.String()),
      name: Nullable(Type.String()),
      amount: Money,
      promoCode: Nullable(Type.String()),
    }),
  ),
  formSubmission: Nullable(Type.Array(Label)),
  fulfillments: Type.Array(Shipment),
  subtotal: Money,
  shippingTotal: Money,
  discountTotal: Money,
  taxTotal: Money,
  refundedTotal: Money,
  grandTotal: Money,
  channelName: Type.String(),
  externalOrderReference: Nullable(Type.String()),
  fulfilledOn: Nullable(Type.String()),
  priceTaxInterpretation: Type.String(),
  paymentState: Type.String(),
  shippingOptionName: Nullable(Type.String()),
  shippingOptionServiceType: Nullable(Type.String()),
});

export const CreatedOrder = Type.Intersect([
  Order,
  Type.Object({ idempotencyKey: Type.String({ description: 'the Idempotency-Key sent, echoed' }) }),
]);

export const OrdersPage = Type.Object({ result: Type.Array(Order), pagination: Pagination });

export type CreateOrderInput = Static<typeof CreateOrderBody>;
export type FulfillInput = Static<typeof FulfillBody>;
export type ListOrdersQueryT = Static<typeof ListOrdersQuery>;
export type AddressInputT = Static<typeof AddressInput>;
export type ShipmentInputT = Static<typeof ShipmentInput>;
