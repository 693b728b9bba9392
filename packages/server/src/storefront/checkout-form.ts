import { parseEmail } from '../shared/email.ts';
import type { AddressJson } from '../shared/order-model.ts';
import { LIMITS } from '../orders/orders.schemas.ts';
import type { CardErrors } from './test-cards.ts';

/**
 * The checkout form: what the shopper typed, kept as typed so the page can show it again next
 * to its errors, and the checks of the buyer's part (the card's are test-cards.ts's).
 */

export const BUYER_FIELDS = [
  'email',
  'firstName',
  'lastName',
  'address1',
  'address2',
  'city',
  'state',
  'postalCode',
  'countryCode',
  'phone',
] as const;
export const CARD_FIELDS = ['cardNumber', 'cardExpiry', 'cardCvc'] as const;
/** The promo code: kept through the form, priced again when the order is placed. */
export const PROMO_FIELDS = ['promoCode'] as const;
/** A gift card's code, apart from the promo code: it pays first, the card the rest. */
export const GIFT_CARD_FIELDS = ['giftCardCode'] as const;

export type BuyerField = (typeof BUYER_FIELDS)[number];
export type CheckoutField =
  | BuyerField
  | (typeof CARD_FIELDS)[number]
  | (typeof PROMO_FIELDS)[number]
  | (typeof GIFT_CARD_FIELDS)[number];
export type CheckoutForm = Record<CheckoutField, string>;
export type CheckoutErrors = Partial<Record<CheckoutField, string>> & CardErrors;

/** Where the store ships: a short list, so the country is chosen rather than typed. */
export const COUNTRIES: readonly (readonly [code: string, name: string])[] = [
  ['US', 'United States'],
  ['CA', 'Canada'],
  ['MX', 'Mexico'],
  ['GB', 'United Kingdom'],
  ['IE', 'Ireland'],
  ['FR', 'France'],
  ['DE', 'Germany'],
  ['NL', 'Netherlands'],
  ['BE', 'Belgium'],
  ['ES', 'Spain'],
  ['IT', 'Italy'],
  ['SE', 'Sweden'],
  ['DK', 'Denmark'],
  ['NO', 'Norway'],
  ['CH', 'Switzerland'],
  ['AU', 'Australia'],
  ['NZ', 'New Zealand'],
  ['JP', 'Japan'],
];

/** The empty form, shipping to the first country. */
export function blankForm(): CheckoutForm {
  const form = Object.fromEntries(
    [...BUYER_FIELDS, ...CARD_FIELDS, ...PROMO_FIELDS, ...GIFT_CARD_FIELDS].map((f) => [f, '']),
  ) as CheckoutForm;
  form.countryCode = COUNTRIES[0]![0];
  return form;
}

/** The form from a posted body: each field once, as a string; anything else reads as empty. */
export function formFrom(body: unknown): CheckoutForm {
  const posted = (body ?? {}) as Record<string, unknown>;
  const form = blankForm();
  for (const name of [...BUYER_FIELDS, ...CARD_FIELDS, ...PROMO_FIELDS, ...GIFT_CARD_FIELDS]) {
    const value = posted[name];
    form[name] = typeof value === 'string' ? value : '';
  }
  return form;
}

const REQUIRED: Partial<Record<BuyerField, string>> = {
  firstName: 'Enter your first name.',
  lastName: 'Enter your last name.',
  address1: 'Enter your street address.',
  city: 'Enter your town or city.',
  postalCode: 'Enter your postal code.',
};

/** The buyer's fields' errors, by field; none when the order can be addressed. */
export function buyerErrors(form: CheckoutForm): CheckoutErrors {
  const errors: CheckoutErrors = {};
  for (const name of BUYER_FIELDS) {
    const value = form[name].trim();
    if (!value && REQUIRED[name]) errors[name] = REQUIRED[name];
    else if (value.length > LIMITS.text) errors[name] = `At most ${LIMITS.text} characters.`;
  }
  const email = form.email.trim();
  if (!email) errors.email = 'Enter your e-mail address.';
  else if (email.length > LIMITS.email) errors.email = `At most ${LIMITS.email} characters.`;
  else {
    try {
      parseEmail(email, 'email');
    } catch {
      errors.email = 'Enter an e-mail address such as name@example.com.';
    }
  }
  if (form.promoCode.trim().length > LIMITS.text) errors.promoCode = `At most ${LIMITS.text} characters.`;
  if (form.giftCardCode.trim().length > LIMITS.text)
    errors.giftCardCode = `At most ${LIMITS.text} characters.`;
  if (!COUNTRIES.some(([code]) => code === form.countryCode)) errors.countryCode = 'Choose a country.';
  return errors;
}

/**
 * Whether the card must be filled in: always without a gift card; with one, only when any card
 * field is (a gift card that covers the total needs no card; one that does not is refused at the
 * order, with nothing charged, when no card was given).
 */
export function cardAsked(form: CheckoutForm): boolean {
  return !form.giftCardCode.trim() || CARD_FIELDS.some((name) => form[name].trim() !== '');
}

/** The shipping address as an order keeps it: trimmed, empty fields null. */
export function addressOf(form: CheckoutForm): AddressJson {
  const value = (name: BuyerField) => form[name].trim() || null;
  return {
    firstName: value('firstName'),
    lastName: value('lastName'),
    address1: value('address1'),
    address2: value('address2'),
    city: value('city'),
    state: value('state'),
    countryCode: value('countryCode'),
    postalCode: value('postalCode'),
    phone: value('phone'),
  };
}
