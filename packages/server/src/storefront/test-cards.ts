import type { Payment } from '../shared/order-model.ts';

/**
 * The storefront's payment test mode. No payment processor is called and no money moves: like a
 * processor's test mode, a few documented card numbers decide what happens.
 *
 * | card number          | result                                   |
 * |----------------------|------------------------------------------|
 * | 4242 4242 4242 4242  | paid                                     |
 * | 4000 0000 0000 0002  | declined: "Your card was declined."      |
 * | fails the Luhn check | "Your card number is incorrect."         |
 * | any other number     | declined: not a test card                |
 *
 * Any expiry date from this month on and any CVC of 3 or 4 digits. The number itself is never
 * kept or logged: an order keeps the card's brand only (the order has no place for more).
 */

export const SUCCEEDS = '4242424242424242';
export const DECLINED = '4000000000000002';

export interface CardInput {
  number: string;
  /** MM/YY or MM/YYYY, as the form's field takes it. */
  expiry: string;
  cvc: string;
}

/** The form fields a card error belongs to. */
export type CardField = 'cardNumber' | 'cardExpiry' | 'cardCvc';
export type CardErrors = Partial<Record<CardField, string>>;

export type CardBrand = NonNullable<Payment['creditCardType']>;

export type CardResult =
  | { paid: true; brand: CardBrand; last4: string }
  /** Malformed fields, or a decline (reported on the card number, as checkout forms do). */
  | { paid: false; errors: CardErrors };

const EXPIRY = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/;
const CVC = /^\d{3,4}$/;
const DIGITS = /^\d{12,19}$/;

/** The Luhn checksum every card number carries: a typo in one digit fails it. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The network from the number's first digits (issuer identification number ranges). */
export function brandOf(digits: string): CardBrand {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if (digits.startsWith('4')) return 'VISA';
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'MASTERCARD';
  if (two === 34 || two === 37) return 'AMEX';
  if (digits.startsWith('6011') || two === 65) return 'DISCOVER';
  if (two === 35) return 'JCB';
  return 'OTHER';
}

/** A card is good through the last day of its expiry month, in UTC here. */
function expiryError(expiry: string, now: Date): string | undefined {
  const match = EXPIRY.exec(expiry);
  if (!match) return 'Enter the expiry date as MM/YY.';
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return 'Your card’s expiration month is invalid.';
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (year * 12 + (month - 1) < thisMonth) return 'Your card’s expiration date is in the past.';
  return undefined;
}

/** The card fields' format errors, every field's at once; none when the card can be tried. */
export function cardErrors(input: CardInput, now: Date): CardErrors {
  const digits = input.number.replace(/[\s-]/g, '');
  const errors: CardErrors = {};
  if (!digits) errors.cardNumber = 'Enter your card number.';
  else if (!DIGITS.test(digits) || !luhnValid(digits)) errors.cardNumber = 'Your card number is incorrect.';
  const expiry = input.expiry.trim() ? expiryError(input.expiry, now) : 'Enter the expiry date.';
  if (expiry) errors.cardExpiry = expiry;
  const cvc = input.cvc.trim();
  if (!CVC.test(cvc)) errors.cardCvc = cvc ? 'Your card’s security code is invalid.' : 'Enter the CVC.';
  return errors;
}

/**
 * "Charges" the card: its fields' format first, then the test number's outcome. Nothing here
 * has any effect; the caller places the order only on `paid`.
 */
export function chargeTestCard(input: CardInput, now: Date): CardResult {
  const errors = cardErrors(input, now);
  if (Object.keys(errors).length > 0) return { paid: false, errors };
  const digits = input.number.replace(/[\s-]/g, '');
  if (digits === SUCCEEDS) return { paid: true, brand: brandOf(digits), last4: digits.slice(-4) };
  if (digits === DECLINED) return { paid: false, errors: { cardNumber: 'Your card was declined.' } };
  return {
    paid: false,
    errors: {
      cardNumber:
        'Your card was declined: this store is in test mode and takes only test cards, such as 4242 4242 4242 4242.',
    },
  };
}
