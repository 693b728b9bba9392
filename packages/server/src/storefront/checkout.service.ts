import { saveImportKey } from '../orders/orders.repo.ts';
import { placeOrder, type OrderDeps, type OrderDraft } from '../orders/place-order.ts';
import { paidWebOrder } from '../orders/web-order.ts';
import type { Db } from '../db/database.ts';
import { findKey, KEY_KEPT_MS } from '../db/idempotency-keys.ts';
import { Conflict, ValidationError } from '../shared/errors.ts';
import { digest, digestHex } from '../shared/secrets.ts';
import type { Cart } from './cart.ts';
import { droppedNotice, viewCart, type CartView } from './cart.service.ts';
import {
  addressOf,
  buyerErrors,
  cardAsked,
  type CheckoutErrors,
  type CheckoutForm,
} from './checkout-form.ts';
import { spendGiftCard } from '../giftcards/gift-cards.service.ts';
import { lockedGiftCard, type GiftCardSpend } from './checkout-gift-card.ts';
import { Refused, type Shown } from './checkout-refusal.ts';
import { lockCheckoutKey } from './checkout.repo.ts';
import { orderDiscount, priceStoreCart } from './checkout-pricing.ts';
import { lockDiscounts, insertRedemption } from '../discounts/discount-redemptions.repo.ts';
import type { PricedCart } from '../discounts/discount-pricing.ts';
import { money } from './store-format.ts';
import { cardErrors, chargeTestCard, type CardBrand } from './test-cards.ts';

/**
 * The storefront's checkout: the cart becomes an order through placeOrder, the one path of every
 * channel, so a web order gets its number, transaction document, buyer's profile, stock taken
 * under the variants' row locks and `order.create` queued, all in one transaction, as any other.
 */

export type CheckoutOutcome =
  | {
      placed: true;
      orderId: string;
      /** The gift cards the order bought, with their codes, for the confirmation (none on a replay). */
      giftCards?: { code: string; amountMinor: number }[];
    }
  | {
      placed: false;
      /** By form field: what to fix there. */
      errors: CheckoutErrors;
      /** About the order as a whole (the cart, the stock). */
      message?: string;
      /** The cart without lines that can no longer be bought, when some were dropped. */
      cart?: Cart;
    };

/** One send of the checkout form: its key, made with the form, and the browser's store token. */
export interface Attempt {
  key: string;
  browser: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A key as the checkout form is given one: a UUID. */
export const isAttemptKey = (key: string) => UUID.test(key);

/** Why this cart cannot be ordered as it stands, if it cannot. */
function cartProblem(view: CartView): Refused | undefined {
  if (view.dropped.length) {
    return new Refused(`${droppedNotice(view.dropped)} Check your cart and order again.`, view.cart);
  }
  if (view.items.length === 0) return new Refused('Your cart is empty.');
  const short = view.items.find((i) => i.shortage);
  return short ? new Refused(short.shortage!) : undefined;
}

function draftOf(
  deps: OrderDeps,
  website: { id: string; currency: string },
  view: CartView,
  form: CheckoutForm,
  card: { brand: CardBrand } | undefined,
  priced: PricedCart,
  giftCard: GiftCardSpend | undefined,
): OrderDraft {
  return paidWebOrder({
    currency: website.currency,
    placedOn: deps.clock.now(website.id),
    customerEmail: form.email.trim(),
    address: addressOf(form),
    // The catalog's prices, read in this transaction: never the cookie's, which holds none.
    lines: view.items.map((item) => ({
      lineItemType: item.lineItemType,
      variantId: item.variantId,
      // A download's line names its product: it has no variant.
      productId: item.variantId ? null : item.productId,
      title: null,
      quantity: item.quantity,
      unitPricePaidMinor: item.unitPriceMinor,
      customizations: null,
    })),
    cardBrand: card?.brand ?? null,
    chargeId: deps.ids.objectId(),
    discount: orderDiscount(priced),
    ...(giftCard && {
      giftCard: {
        giftCardId: giftCard.card.id,
        amountMinor: giftCard.amountMinor,
        redemptionId: giftCard.redemptionId,
      },
    }),
  });
}

/**
 * The cart priced in the placing transaction, under the row lock of the discount that applies,
 * so its uses are counted one at a time: a limited discount used up meanwhile no longer applies
 * when priced again after the lock. Another discount may then apply; it is locked in turn.
 */
async function lockedPrice(
  trx: Db,
  deps: OrderDeps,
  website: { id: string; currency: string },
  view: CartView,
  form: CheckoutForm,
): Promise<PricedCart> {
  const price = () =>
    priceStoreCart({ db: trx, clock: deps.clock }, website, view.items, form.promoCode, form.email);
  let priced = await price();
  for (let round = 0; round < 3; round++) {
    const id = priced.discountLines[0]?.discountId;
    if (!id) return priced;
    await lockDiscounts(trx, website.id, [id]);
    const again = await price();
    if (again.discountLines[0]?.discountId === id) return again;
    priced = again;
  }
  return priced;
}

/**
 * Checks the form, "charges" the test card and places the order. Any refusal (a field, a
 * declined card, a sold-out item) changes nothing; the shopper's cart stays as it was unless a
 * line could no longer be bought at all. The form sent again (a double click, a retry) answers
 * with the order its first send placed, kept 48 hours as the API's Idempotency-Keys are.
 */
export async function checkout(
  deps: OrderDeps,
  website: { id: string; currency: string },
  cart: Cart,
  form: CheckoutForm,
  attempt: Attempt,
  shown: Shown = {},
): Promise<CheckoutOutcome> {
  const shownTotalMinor = shown.totalMinor;
  const card = { number: form.cardNumber, expiry: form.cardExpiry, cvc: form.cardCvc };
  const now = deps.clock.now(website.id);
  const since = new Date(now.getTime() - KEY_KEPT_MS);
  // The key is the browser's own: another browser's form never finds this one's order.
  const keyRow = isAttemptKey(attempt.key)
    ? { website_id: website.id, caller: `store:${digestHex(attempt.browser)}`, key: attempt.key }
    : undefined;
  // A form sent again after its first send placed the order (whose answer emptied the cart) is
  // answered with that order before anything else is checked.
  const placedBefore = keyRow && (await findKey(deps.db, 'order_import_keys', keyRow, since));
  if (placedBefore) return { placed: true, orderId: placedBefore.order_id };
  // With a gift card and no card typed, the card is not asked for: the gift card may cover it all.
  const withCard = cardAsked(form);
  const errors = { ...buyerErrors(form), ...(withCard ? cardErrors(card, now) : {}) };
  if (cart.length === 0) return { placed: false, errors, message: 'Your cart is empty.' };
  if (Object.keys(errors).length > 0) return { placed: false, errors };
  const charge = withCard ? chargeTestCard(card, now) : undefined;
  if (charge && !charge.paid) return { placed: false, errors: charge.errors };

  if (!keyRow) {
    return {
      placed: false,
      errors,
      message: 'This form has expired. Reload the checkout page and try again.',
    };
  }
  try {
    const result = await deps.db.transaction().execute(async (trx) => {
      await lockCheckoutKey(trx, keyRow);
      // Sent twice at once: the second waits on the key's lock above, then finds the order.
      const earlier = await findKey(trx, 'order_import_keys', keyRow, since);
      if (earlier) return { replayed: earlier.order_id };
      const view = await viewCart(trx, website.id, cart);
      const problem = cartProblem(view);
      if (problem) throw problem;
      const priced = await lockedPrice(trx, deps, website, view, form);
      // A discount that stopped applying since the page was shown (expired, used up, deleted):
      // nothing is charged above what the shopper saw (README, "Checkout").
      const total = priced.totalMinor;
      if (shownTotalMinor !== undefined && total > shownTotalMinor) {
        const now = money(total, website.currency);
        const before = money(shownTotalMinor, website.currency);
        throw new Refused(
          `A discount shown on this page is no longer available, so your total is now ${now}, not ${before}. ` +
            'Nothing was charged; check the total and place your order again.',
        );
      }
      // The gift card pays first, after the discounts, under its row lock to the commit.
      const giftCard = await lockedGiftCard(trx, deps, website, form, total, charge !== undefined, shown);
      const draft = draftOf(deps, website, view, form, charge, priced, giftCard);
      const used = priced.discountLines[0];
      // Kept beside the API's import keys; the digest records the cart, a second send of the
      // same form is answered with this order whatever it carries.
      const written = async (orderId: string) => {
        await saveImportKey(trx, {
          ...keyRow,
          request_digest: digest(JSON.stringify(cart)),
          order_id: orderId,
          created_at: now,
        });
        if (giftCard) await spendGiftCard(trx, deps, giftCard.card, giftCard.amountMinor, orderId);
        if (used) {
          await insertRedemption(trx, {
            discountId: used.discountId,
            websiteId: website.id,
            buyerEmail: form.email.trim().toLowerCase(),
            orderId,
            redeemedOn: now,
          });
        }
      };
      return placeOrder(trx, deps, website, draft, { written });
    });
    if ('replayed' in result) return { placed: true, orderId: result.replayed };
    result.announce();
    const giftCards = result.giftCards.map(({ code, amountMinor }) => ({ code, amountMinor }));
    return { placed: true, orderId: result.order.id, ...(giftCards.length && { giftCards }) };
  } catch (error) {
    if (error instanceof Refused) {
      return {
        placed: false,
        errors: error.errors,
        message: error.message,
        ...(error.cart && { cart: error.cart }),
      };
    }
    // Another shopper took the last ones between our read and the row locks placeOrder takes,
    // or the owner removed an item meanwhile: the shopper is told in the cart's terms.
    const sold = error instanceof Conflict && error.subtype === 'INSUFFICIENT_STOCK';
    if (sold || error instanceof ValidationError) {
      const problem = cartProblem(await viewCart(deps.db, website.id, cart));
      const fallback = sold
        ? 'Sorry, an item in your cart has just sold out.'
        : 'An item in your cart has just changed in the store. Check your cart and order again.';
      return {
        placed: false,
        errors: {},
        message: problem?.message ?? fallback,
        ...(problem?.cart && { cart: problem.cart }),
      };
    }
    throw error;
  }
}
