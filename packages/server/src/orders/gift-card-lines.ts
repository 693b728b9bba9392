import type { Db } from '../db/database.ts';
import { issueGiftCards, type GiftCardDeps, type IssuedGiftCard } from '../giftcards/gift-cards.service.ts';
import { decimalToMinorUnits, fromMinorUnits } from '../shared/money.ts';
import type { PlacedOrder } from '../shared/order-model.ts';
import { transactionDocument } from '../transactions/transaction-document.ts';

/**
 * The gift cards an order buys: one card per unit of each GIFT_CARD line, issued in the placing
 * transaction. A card's balance is what was paid for it: its line's `total` in the transaction
 * document (the price after the line's share of any discount, with its tax) spread over the
 * units as a refund spreads it (refund-amounts.ts), so refunding one card's item gives back
 * exactly that card's balance and the cards of a line add up to the line to the cent.
 */

/** Ids for a document built only to read its line totals. */
const NO_IDS = { objectId: () => '0'.repeat(24), uuid: () => '00000000-0000-4000-8000-000000000000' };

const cumulative = (total: number, items: number, quantity: number) =>
  items >= quantity ? total : Number((BigInt(total) * BigInt(items)) / BigInt(quantity));

/** Each gift card unit of the order, with what was paid for it. */
export function giftCardUnits(order: PlacedOrder): { lineId: string; amountMinor: number }[] {
  if (!order.lineItems.some((line) => line.lineItemType === 'GIFT_CARD')) return [];
  const document = transactionDocument(order, NO_IDS);
  const units: { lineId: string; amountMinor: number }[] = [];
  order.lineItems.forEach((line, i) => {
    if (line.lineItemType !== 'GIFT_CARD') return;
    const total = decimalToMinorUnits(document.salesLineItems[i]!.total.value, order.currency);
    for (let k = 1; k <= line.quantity; k++) {
      const amountMinor = cumulative(total, k, line.quantity) - cumulative(total, k - 1, line.quantity);
      units.push({ lineId: line.id, amountMinor });
    }
  });
  return units;
}

/** Issues the order's gift cards (none when it bought none); the codes go to the buyer only. */
export async function issueOrderGiftCards(
  trx: Db,
  deps: GiftCardDeps,
  order: PlacedOrder,
): Promise<IssuedGiftCard[]> {
  const units = giftCardUnits(order);
  return units.length ? issueGiftCards(trx, deps, order, units) : [];
}

/** The codes as the order confirmation e-mail lists them. */
export const emailedGiftCards = (cards: IssuedGiftCard[], currency: string) =>
  cards.map((card) => ({ code: card.code, amount: fromMinorUnits(card.amountMinor, currency) }));
