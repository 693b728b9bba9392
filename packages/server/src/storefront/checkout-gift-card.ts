import type { Db } from '../db/database.ts';
import type { GiftCardRow } from '../giftcards/gift-cards.repo.ts';
import {
  findGiftCard,
  lockGiftCardForSpending,
  spendRefusal,
  UNKNOWN_CODE,
} from '../giftcards/gift-cards.service.ts';
import type { OrderDeps } from '../orders/place-order.ts';
import { ValidationError } from '../shared/errors.ts';
import type { CheckoutForm } from './checkout-form.ts';
import { Refused, type Shown } from './checkout-refusal.ts';
import { money } from './store-format.ts';

/**
 * The gift card applied at checkout, before the order is placed: what it would pay of this total
 * and what is left for the card, or why it cannot pay. Read without the card's lock, so it is only
 * a preview: the placing transaction checks the card again under its lock (lockedGiftCard below).
 */
export type GiftCardPreview =
  | { applied: true; lastFour: string; balanceMinor: number; paysMinor: number; restMinor: number }
  | { applied: false; refusal: string };

export async function previewGiftCard(
  db: Db,
  websiteId: string,
  typed: string,
  totalMinor: number,
): Promise<GiftCardPreview | undefined> {
  if (!typed.trim()) return undefined;
  const card = await findGiftCard(db, websiteId, typed);
  const refusal = spendRefusal(card);
  if (refusal || !card) return { applied: false, refusal: refusal ?? UNKNOWN_CODE };
  const paysMinor = Math.min(card.balance_minor, totalMinor);
  return {
    applied: true,
    lastFour: card.last_four,
    balanceMinor: card.balance_minor,
    paysMinor,
    restMinor: totalMinor - paysMinor,
  };
}

/** A gift card's part of the order: the card locked for its spending, and what it pays. */
export interface GiftCardSpend {
  card: GiftCardRow;
  amountMinor: number;
  redemptionId: string;
}

/**
 * The gift card named in the form, locked for the rest of the transaction, and what it pays: its
 * balance, up to the total. Refused, with nothing charged, when it cannot pay (an unknown code,
 * another site's, a disabled card, no balance left: a card spent meanwhile waits on the lock and
 * then finds its balance taken), when it now pays less than the page showed (so the card would be
 * charged more than shown), and when it leaves a rest and no card was given.
 */
export async function lockedGiftCard(
  trx: Db,
  deps: OrderDeps,
  website: { id: string; currency: string },
  form: CheckoutForm,
  totalMinor: number,
  hasCard: boolean,
  shown: Shown,
): Promise<GiftCardSpend | undefined> {
  if (!form.giftCardCode.trim()) return undefined;
  let card: GiftCardRow;
  try {
    card = await lockGiftCardForSpending(trx, website.id, form.giftCardCode);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new Refused(`${error.message} Nothing was charged.`, undefined, { giftCardCode: error.message });
  }
  const amountMinor = Math.min(card.balance_minor, totalMinor);
  if (cardPaysMoreThanShown(shown, totalMinor, amountMinor)) {
    const pays = money(amountMinor, website.currency);
    const before = money(shown.giftCardPaysMinor!, website.currency);
    const message =
      `This gift card's balance is now ${money(card.balance_minor, website.currency)}, so it pays ${pays}, ` +
      `not the ${before} shown. Apply it again to see what the card pays.`;
    throw new Refused(`${message} Nothing was charged.`, undefined, { giftCardCode: message });
  }
  if (!hasCard && amountMinor < totalMinor) {
    const balance = money(card.balance_minor, website.currency);
    const rest = money(totalMinor - amountMinor, website.currency);
    const message = `This gift card's balance is ${balance}: enter a card to pay the other ${rest}.`;
    throw new Refused(`${message} Nothing was charged.`, undefined, { cardNumber: message });
  }
  return amountMinor > 0 ? { card, amountMinor, redemptionId: deps.ids.objectId() } : undefined;
}

/**
 * Whether the card would now pay more than the page showed it paying (the total shown less what
 * the gift card was shown to pay): a gift card paying less only because the total fell is not.
 */
function cardPaysMoreThanShown(shown: Shown, totalMinor: number, giftCardMinor: number): boolean {
  if (shown.giftCardPaysMinor === undefined) return false;
  if (shown.totalMinor === undefined) return giftCardMinor < shown.giftCardPaysMinor;
  return totalMinor - giftCardMinor > shown.totalMinor - shown.giftCardPaysMinor;
}
