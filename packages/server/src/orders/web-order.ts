import { standardShippingMinor } from '../discounts/fulfillment-options.ts';
import { majorUnit } from '../shared/money.ts';
import { shipsLine, type AddressJson, type GiftCardPayment, type Payment } from '../shared/order-model.ts';
import type { DraftLine, OrderDraft } from './place-order.ts';

/**
 * An order of Emporium's own store, paid by card in test mode: what the store's checkout places
 * and what sample orders (`emporium admin create-order`, the demo) imitate. One flat shipping
 * line when anything is shipped, the one discount priced at the checkout if any (none for sample orders), no tax, the
 * card's charge on what was charged with the gateway's fee, the stock taken.
 */

/** Stripe's US card pricing: 2.9% of the charge plus 30 cents. */
const CARD_FEE_RATE = 0.029;
const CARD_FEE_FIXED_MAJOR = 0.3;
const SHIPPING_NAME = 'Standard shipping';

/** What the card gateway keeps of a store order's charge (its processing fee). */
export function cardFeeMinor(grandTotalMinor: number, currency: string): number {
  return Math.round(grandTotalMinor * CARD_FEE_RATE + CARD_FEE_FIXED_MAJOR * majorUnit(currency));
}

export interface PaidWebOrder {
  currency: string;
  placedOn: Date;
  customerEmail: string;
  /** Billing and shipping alike. */
  address: AddressJson;
  lines: DraftLine[];
  cardBrand: Payment['creditCardType'];
  /** The test charge's id, after `ch_test_`. */
  chargeId: string;
  /** The discount priced for this cart (discount-pricing.ts `priceCart`); none when absent. */
  discount?: OrderDiscount;
  /**
   * What a gift card pays, first, up to the total (storefront/checkout-gift-card.ts); the card
   * pays the rest, and nothing when the gift card covers it all.
   */
  giftCard?: Omit<GiftCardPayment, 'paidOn'>;
}

export interface OrderDiscount {
  /** Zero or one line (platform-surface 2.1.4 `discountLines`). */
  lines: { name: string; promoCode: string | null; amountMinor: number }[];
  /** Taken off the merchandise. */
  merchandiseMinor: number;
  /**
   * Each line's share of merchandiseMinor, in the order of `PaidWebOrder.lines`, summing to it
   * (discount-pricing.ts `lineDiscountsMinor`). Absent: spread in proportion to the lines' sales.
   */
  perLineMinor?: number[];
  /** Taken off the shipping line (FREE_SHIPPING). */
  shippingMinor: number;
}

export function paidWebOrder(order: PaidWebOrder): OrderDraft {
  const { currency, placedOn, address } = order;
  const perLine = order.discount?.perLineMinor;
  const lines = perLine
    ? order.lines.map((line, i) => ({ ...line, discountMinor: perLine[i] ?? 0 }))
    : order.lines;
  const subtotal = lines.reduce((sum, line) => sum + line.unitPricePaidMinor * line.quantity, 0);
  // Only shipped lines are charged shipping: an order of services alone has none, and no address to ship to.
  const ships = lines.some((line) => shipsLine(line.lineItemType));
  const shipping = ships ? standardShippingMinor(currency) : 0;
  const discountLines = order.discount?.lines ?? [];
  const shippingDiscount = order.discount?.shippingMinor ?? 0;
  const discountTotal = (order.discount?.merchandiseMinor ?? 0) + shippingDiscount;
  const grandTotal = subtotal + shipping - discountTotal;
  const giftCardMinor = order.giftCard?.amountMinor ?? 0;
  if (giftCardMinor > grandTotal) throw new Error('a gift card pays at most the total');
  // The card is charged, and its fee taken, on what the gift card left.
  const cardMinor = grandTotal - giftCardMinor;
  return {
    channel: 'web',
    channelName: 'Emporium',
    externalOrderReference: null,
    createdOn: null,
    placedOn,
    // Paid with a test card: a test-mode payment, as the platform marks one.
    testmode: true,
    customerEmail: order.customerEmail,
    billingAddress: address,
    shippingAddress: ships ? address : null,
    lines,
    internalNotes: [],
    shippingLines: ships
      ? [
          {
            method: SHIPPING_NAME,
            amountMinor: shipping,
            ...(shippingDiscount && { discountMinor: shippingDiscount }),
          },
        ]
      : [],
    discountLines,
    formSubmission: null,
    subtotalMinor: subtotal,
    shippingTotalMinor: shipping,
    discountTotalMinor: discountTotal,
    taxTotalMinor: 0,
    refundedTotalMinor: 0,
    grandTotalMinor: grandTotal,
    priceTaxInterpretation: 'EXCLUSIVE',
    paymentState: 'PAID',
    fulfillmentStatus: 'PENDING',
    fulfilledOn: null,
    fulfillments: [],
    shippingOptionName: ships ? SHIPPING_NAME : null,
    shippingOptionServiceType: null,
    payment:
      cardMinor > 0 || !order.giftCard
        ? {
            provider: 'STRIPE',
            creditCardType: order.cardBrand,
            externalTransactionId: `ch_test_${order.chargeId}`,
            paidOn: placedOn,
            processingFeeMinor: cardFeeMinor(cardMinor, currency),
          }
        : null,
    ...(order.giftCard && { giftCardPayment: { ...order.giftCard, paidOn: placedOn } }),
    deductStock: true,
  };
}
