import type { Cart } from './cart.ts';
import type { CheckoutErrors } from './checkout-form.ts';

/**
 * What stops a checkout inside its placing transaction: the refusal rolls the transaction back and
 * the shopper is told why; and what the page showed, which no order is charged more than.
 */

/** What the page showed, in minor units, when the form said it: never charged more than shown. */
export interface Shown {
  totalMinor?: number;
  /** What the applied gift card was shown to pay (checkout-gift-card.ts). */
  giftCardPaysMinor?: number;
}

/** A refusal found inside the transaction: it rolls back, and the shopper is told `message`. */
export class Refused extends Error {
  constructor(
    message: string,
    readonly cart?: Cart,
    /** By field, when the refusal is about one (the gift card's code). */
    readonly errors: CheckoutErrors = {},
  ) {
    super(message);
  }
}
