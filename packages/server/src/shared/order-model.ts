/**
 * An order as the services hand it around, before it is stored or sent: money in integer minor
 * units of the website's currency (shared/money.ts renders it), times as Dates except the
 * placing time an import sent, which is echoed verbatim (platform-surface 0.6).
 */

/** An order Address (platform-surface 2.1.4). */
export interface AddressJson {
  firstName: string | null;
  lastName: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  countryCode: string | null;
  postalCode: string | null;
  phone: string | null;
}

/** A shipment as sent (platform-surface 2.1.3). */
export interface ShipmentJson {
  shipDate: string;
  carrierName: string;
  service: string;
  trackingNumber: string;
  trackingUrl: string | null;
}

/**
 * The line item type of an order line selling this product type. The platform's names where seen
 * (platform-surface 2.1.4: `PHYSICAL_PRODUCT`, `SERVICE`); `DIGITAL` and `GIFT_CARD` are the most
 * likely spellings of the two it has not published (open question 4, docs/orders.md).
 */
export function lineItemTypeOf(productType: string): StoreLineItemType | undefined {
  return STORE_LINE_TYPES[productType];
}

const STORE_LINE_TYPES: Record<string, StoreLineItemType> = {
  PHYSICAL: 'PHYSICAL_PRODUCT',
  SERVICE: 'SERVICE',
  DIGITAL: 'DIGITAL',
  GIFT_CARD: 'GIFT_CARD',
};

/** The product types the store's cart and checkout sell. */
const SOLD: ReadonlySet<string> = new Set(['PHYSICAL', 'SERVICE', 'GIFT_CARD', 'DIGITAL']);

/** Whether the store's cart sells this product type. */
export const storeSells = (productType: string): boolean => SOLD.has(productType);

/**
 * Whether a line of this type is shipped: a physical item, and a CUSTOM line of a sample order
 * (a gift wrap goes in the parcel). A service, a download and a gift card are not.
 */
export const shipsLine = (lineItemType: string): boolean =>
  lineItemType === 'PHYSICAL_PRODUCT' || lineItemType === 'CUSTOM';

export const PAYMENT_STATES = [
  'NOT_CHARGED',
  'AUTHORIZED',
  'PAID',
  'REFUNDED',
  'PENDING',
  'FAILED',
  'REFUND_PENDING',
  'REFUND_FAILED',
  'PARTIALLY_PAID',
] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

export const FULFILLMENT_STATUSES = ['PENDING', 'FULFILLED', 'CANCELED'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

/** The line item types of the store's checkout, one a product type it sells. */
export type StoreLineItemType = 'PHYSICAL_PRODUCT' | 'SERVICE' | 'DIGITAL' | 'GIFT_CARD';

/**
 * Line item types Emporium writes (platform-surface 2.1.4, Q4). An import sends PHYSICAL_PRODUCT
 * or CUSTOM lines; the store's checkout writes one of each product type it sells.
 */
export type LineItemType = StoreLineItemType | 'CUSTOM';

export interface OrderLine {
  id: string;
  lineItemType: LineItemType;
  /** Set for a catalog variant; null for a CUSTOM line. */
  variantId: string | null;
  sku: string | null;
  productId: string | null;
  productName: string;
  quantity: number;
  unitPricePaidMinor: number;
  /**
   * What the order's discount took off this line, in minor units, when the discount priced it
   * per line (discount-pricing.ts `lineDiscountsMinor`: a PRODUCT or BUY_X_GET_Y discount lands
   * on its eligible lines only). Absent (imports, which send only a total): the merchandise
   * discount is spread over the lines in proportion. Not on the wire: the platform's order line
   * has no discount field (platform-surface 2.1.4); the transaction document's sales lines show it.
   */
  discountMinor?: number;
  weight: number;
  width: number;
  length: number;
  height: number;
  variantOptions: { optionName: string; value: string }[] | null;
  customizations: { label: string; value: string }[] | null;
  imageUrl: string | null;
}

/** How the buyer paid, for orders taken by Emporium itself (imports were paid elsewhere). */
export interface Payment {
  provider: 'SQUARESPACE' | 'STRIPE' | 'PAYPAL' | 'SQUARE';
  creditCardType: 'VISA' | 'MASTERCARD' | 'DISCOVER' | 'AMEX' | 'JCB' | 'OTHER' | null;
  /** The gateway's charge id, such as `ch_...`. */
  externalTransactionId: string;
  paidOn: Date;
  /** The gateway's fee, in minor units of the website's currency. */
  processingFeeMinor: number;
}

export interface PlacedOrder {
  id: string;
  websiteId: string;
  currency: string;
  orderNumber: number;
  /** `web` (storefront), `pos`, or `external` (imported through the API). */
  channel: string;
  channelName: string;
  externalOrderReference: string | null;
  /** When it was placed: as an import sent it, or the ISO form of `placedOn`. */
  createdOn: string;
  placedOn: Date;
  testmode: boolean;
  customerEmail: string | null;
  /** The buyer's profile (profiles.service.ts), when there is an e-mail. */
  customerId: string | null;
  billingAddress: AddressJson | null;
  shippingAddress: AddressJson | null;
  lineItems: OrderLine[];
  internalNotes: { content: string }[];
  /**
   * discountMinor: what the order's discount took off this line (FREE_SHIPPING), part of
   * discountTotalMinor; absent for none (platform-surface 2.2.3 ShippingLineItem.discountAmount).
   */
  shippingLines: { method: string; amountMinor: number; discountMinor?: number }[];
  discountLines: { name: string; promoCode: string | null; amountMinor: number }[];
  formSubmission: { label: string; value: string }[] | null;
  subtotalMinor: number;
  shippingTotalMinor: number;
  discountTotalMinor: number;
  taxTotalMinor: number;
  refundedTotalMinor: number;
  grandTotalMinor: number;
  priceTaxInterpretation: 'EXCLUSIVE' | 'INCLUSIVE';
  paymentState: PaymentState;
  fulfillmentStatus: FulfillmentStatus;
  fulfilledOn: Date | null;
  fulfillments: ShipmentJson[];
  shippingOptionName: string | null;
  shippingOptionServiceType: string | null;
  /**
   * The card's payment. Null for an import (its money was taken on the other channel), and for a
   * store order a gift card paid in full.
   */
  payment: Payment | null;
  /** What a gift card paid, first, before the card's payment for the rest (docs/orders.md, "Gift cards"). */
  giftCardPayment?: GiftCardPayment;
}

/** A gift card's part of a store order's payment: the transaction document's payment with `giftCardId`. */
export interface GiftCardPayment {
  /** The card's id (a UUID): the payment's `giftCardId`. */
  giftCardId: string;
  amountMinor: number;
  /** The redemption's id, after `gc_test_`: the payment's `externalTransactionId`. */
  redemptionId: string;
  paidOn: Date;
}
