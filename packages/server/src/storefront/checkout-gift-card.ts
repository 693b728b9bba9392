import type { Db } from '../db/database.ts';
import { findGiftCard, spendRefusal, UNKNOWN_CODE } from '../giftcards/gift-cards.service.ts';

/**
 * The gift card applied at checkout, before the order is placed: what it would pay of this total
 * and what is left for the card, or why it cannot pay. Read without the card's lock, so it is only
 * a preview: the placing transaction checks the card again under its lock (checkout.service.ts).
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
