import { randomBytes, randomUUID } from 'node:crypto';
import type { PlacedOrder } from '../../src/shared/order-model.ts';
import type { Ids } from '../../src/shared/ids.ts';

/** Orders and ids for the transactions.*.test.ts files. */

/** Ids counting up, so a document built twice comes out the same. */
export function countingIds(): Ids {
  let n = 0;
  const next = () => (++n).toString(16).padStart(12, '0');
  return { objectId: () => next().padStart(24, '0'), uuid: () => `00000000-0000-4000-8000-${next()}` };
}

export const address = (countryCode: string | null, state: string | null = null) => ({
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '1 Main St',
  address2: null,
  city: 'Albany',
  state,
  countryCode,
  postalCode: '12207',
  phone: null,
});

export const line = (unitPricePaidMinor: number, quantity: number) => ({
  id: randomBytes(12).toString('hex'),
  lineItemType: 'PHYSICAL_PRODUCT' as const,
  variantId: randomUUID(),
  sku: 'SKU-1',
  productId: randomBytes(12).toString('hex'),
  productName: 'Mug',
  quantity,
  unitPricePaidMinor,
  weight: 0,
  width: 0,
  length: 0,
  height: 0,
  variantOptions: [],
  customizations: null,
  imageUrl: null,
});

let orderNumber = 0;
export const PLACED_ON = new Date('2025-12-01T10:00:00.000Z');

/** An order of two mugs at 15.00 with 5.00 shipping, paid by card with a 1.32 fee. */
export function order(websiteId: string, overrides: Partial<PlacedOrder> = {}): PlacedOrder {
  return {
    id: randomBytes(12).toString('hex'),
    websiteId,
    currency: 'USD',
    orderNumber: ++orderNumber,
    channel: 'web',
    channelName: 'Squarespace',
    externalOrderReference: null,
    createdOn: PLACED_ON.toISOString(),
    placedOn: PLACED_ON,
    testmode: false,
    customerEmail: 'buyer@example.com',
    customerId: null,
    billingAddress: null,
    shippingAddress: address('US', 'NY'),
    lineItems: [line(1500, 2)],
    internalNotes: [],
    shippingLines: [{ method: 'USPS Flat Rate', amountMinor: 500 }],
    discountLines: [],
    formSubmission: null,
    subtotalMinor: 3000,
    shippingTotalMinor: 500,
    discountTotalMinor: 0,
    taxTotalMinor: 0,
    refundedTotalMinor: 0,
    grandTotalMinor: 3500,
    priceTaxInterpretation: 'EXCLUSIVE',
    paymentState: 'PAID',
    fulfillmentStatus: 'PENDING',
    fulfilledOn: null,
    fulfillments: [],
    shippingOptionName: null,
    shippingOptionServiceType: null,
    payment: {
      provider: 'STRIPE',
      creditCardType: 'VISA',
      externalTransactionId: 'ch_1FFCJCLMG4qggZ0BzchTZjwR',
      paidOn: PLACED_ON,
      processingFeeMinor: 132,
    },
    ...overrides,
  };
}

export const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
