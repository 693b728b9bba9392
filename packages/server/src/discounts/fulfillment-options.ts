import { createHash } from 'node:crypto';
import { majorUnit } from '../shared/money.ts';
import type { CartShipping } from './discount-pricing.ts';

/**
 * The website's fulfillment options (platform-surface 2.7.7), which FREE_SHIPPING templates name.
 * Emporium's store has one: the flat standard shipping its checkout charges
 * (`standardShippingMinor` below, put on the order by orders/web-order.ts). A flat rate has no carrier services, so its
 * `availableServices` is empty, as the order's `shippingOptionServiceType` is null.
 */

/** The carrier services a FREE_SHIPPING template may select (platform-surface 2.7.2). */
export const SHIPPING_SERVICES = [
  'FEDEX_GROUND',
  'FEDEX_GROUND_HOME_DELIVERY',
  'FEDEX_PRIORITY_OVERNIGHT',
  'FEDEX_STANDARD_OVERNIGHT',
  'FEDEX_2_DAY',
  'FEDEX_2_DAY_AM',
  'FEDEX_EXPRESS_SAVER',
  'FEDEX_FIRST_OVERNIGHT',
  'FEDEX_SAME_DAY',
  'FEDEX_SAME_DAY_CITY',
  'UPS_GROUND',
  'UPS_NEXT_DAY_AIR',
  'UPS_NEXT_DAY_AIR_SAVER',
  'UPS_NEXT_DAY_AIR_EARLY_AM',
  'UPS_TWO_DAY_AIR',
  'UPS_TWO_DAY_AIR_AM',
  'UPS_THREE_DAY_SELECT',
  'USPS_PRIORITY',
  'USPS_EXPRESS',
  'USPS_STANDARD',
] as const;

export type ShippingService = (typeof SHIPPING_SERVICES)[number];

export interface FulfillmentOption {
  id: string;
  name: string;
  type: 'SHIPPING' | 'PICKUP' | 'LOCAL_DELIVERY';
  availableServices: { name: ShippingService; description: string }[];
}

export const STANDARD_SHIPPING_NAME = 'Standard Shipping';

/** The flat charge of standard shipping, in major units of the website's currency. */
const STANDARD_SHIPPING_MAJOR = 5;

/** The flat shipping of a store order. */
export function standardShippingMinor(currency: string): number {
  return STANDARD_SHIPPING_MAJOR * majorUnit(currency);
}

/**
 * The standard option's id: 24 hex characters derived from the website's id, so it is the same
 * on every call and every instance, and differs between websites, with nothing stored.
 */
export function standardShippingId(websiteId: string): string {
  return createHash('sha256').update(`standard-shipping:${websiteId}`).digest('hex').slice(0, 24);
}

export function fulfillmentOptions(websiteId: string): FulfillmentOption[] {
  return [
    {
      id: standardShippingId(websiteId),
      name: STANDARD_SHIPPING_NAME,
      type: 'SHIPPING',
      availableServices: [],
    },
  ];
}

/**
 * The shipping of a store order as pricing takes it (discount-pricing.ts `CartShipping`): the
 * standard option, at its flat charge, which the checkout puts on the order (orders/web-order.ts).
 */
export function standardShipping(websiteId: string, currency: string): CartShipping {
  return {
    optionId: standardShippingId(websiteId),
    optionType: 'SHIPPING',
    service: null,
    amountMinor: standardShippingMinor(currency),
  };
}
