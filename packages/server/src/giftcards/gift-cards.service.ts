import type { Db } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { fromMinorUnits } from '../shared/money.ts';
import { codeDigest, lastFour, maskedCode, newGiftCardCode, normalizeCode } from './gift-card-codes.ts';
import * as repo from './gift-cards.repo.ts';

/**
 * Gift cards: issued in the transaction of the order that bought them, spent at checkout under
 * the card's row lock (so the last of a balance is spent once), given back by refunds, disabled by
 * the owner. Every change of a balance writes an event, the card's history.
 */

export interface GiftCardDeps {
  ids: Ids;
  clock: Clock;
}

/** A card just issued: its code, which is shown to the buyer and never stored. */
export interface IssuedGiftCard {
  id: string;
  code: string;
  amountMinor: number;
  lineId: string;
}

/** Issues one card of each amount, for the order's gift card lines; returns them with their codes. */
export async function issueGiftCards(
  trx: Db,
  deps: GiftCardDeps,
  order: { websiteId: string; id: string; currency: string },
  units: { lineId: string; amountMinor: number }[],
): Promise<IssuedGiftCard[]> {
  const issuedOn = deps.clock.now(order.websiteId);
  const issued: IssuedGiftCard[] = [];
  for (const unit of units) {
    const code = newGiftCardCode();
    const id = deps.ids.uuid();
    await repo.insertGiftCard(trx, {
      id,
      website_id: order.websiteId,
      code_digest: codeDigest(code),
      last_four: lastFour(code),
      currency: order.currency,
      amount_minor: unit.amountMinor,
      balance_minor: unit.amountMinor,
      state: 'ACTIVE',
      order_id: order.id,
      line_id: unit.lineId,
      issued_on: issuedOn,
    });
    await event(trx, deps, order.websiteId, id, 'ISSUED', unit.amountMinor, unit.amountMinor, order.id);
    issued.push({ id, code, amountMinor: unit.amountMinor, lineId: unit.lineId });
  }
  return issued;
}

async function event(
  trx: Db,
  deps: GiftCardDeps,
  websiteId: string,
  giftCardId: string,
  kind: repo.GiftCardEventRow['kind'],
  amountMinor: number,
  balanceMinor: number,
  orderId: string | null,
): Promise<void> {
  await repo.insertEvent(trx, {
    id: deps.ids.uuid(),
    website_id: websiteId,
    gift_card_id: giftCardId,
    kind,
    amount_minor: amountMinor,
    balance_minor: balanceMinor,
    order_id: orderId,
    happened_on: deps.clock.now(websiteId),
  });
}

/** The one message of a code that finds no card of this website: another site's code says the same. */
export const UNKNOWN_CODE = 'No gift card has this code. Check the code and try again.';

/** Why a card cannot pay, if it cannot: what the shopper is told beside the code. */
export function spendRefusal(card: repo.GiftCardRow | undefined): string | undefined {
  if (!card) return UNKNOWN_CODE;
  if (card.state === 'DISABLED') return 'This gift card has been disabled and cannot be used.';
  if (card.balance_minor <= 0) return 'This gift card has no balance left.';
  return undefined;
}

/** The website's card with this code, unlocked (to show its balance); undefined when none. */
export async function findGiftCard(db: Db, websiteId: string, typed: string) {
  const code = normalizeCode(typed);
  return code ? repo.findByDigest(db, websiteId, codeDigest(code)) : undefined;
}

/**
 * The card with this code, locked for the rest of the caller's transaction, which spends it:
 * refused with the shopper's message when it cannot pay.
 */
export async function lockGiftCardForSpending(
  trx: Db,
  websiteId: string,
  typed: string,
): Promise<repo.GiftCardRow> {
  const code = normalizeCode(typed);
  const card = code ? await repo.lockByDigest(trx, websiteId, codeDigest(code)) : undefined;
  const refusal = spendRefusal(card);
  if (refusal) throw new ValidationError(refusal, 'GIFT_CARD_REFUSED');
  return card!;
}

/** Takes `amountMinor` of a card the caller locked, for the order it pays. */
export async function spendGiftCard(
  trx: Db,
  deps: GiftCardDeps,
  card: repo.GiftCardRow,
  amountMinor: number,
  orderId: string,
): Promise<void> {
  if (amountMinor <= 0 || amountMinor > card.balance_minor) throw new Error('a spend within the balance');
  const balance = card.balance_minor - amountMinor;
  await repo.updateCard(trx, card.id, { balance_minor: balance });
  await event(trx, deps, card.website_id, card.id, 'REDEEMED', amountMinor, balance, orderId);
}

/**
 * Gives back `amountMinor` that a refund of `orderId` returns to the card that paid it, never
 * above the card's amount. A disabled card takes it too (its history says so) and stays disabled.
 */
export async function restoreGiftCard(
  trx: Db,
  deps: GiftCardDeps,
  websiteId: string,
  giftCardId: string,
  amountMinor: number,
  orderId: string,
): Promise<void> {
  const [card] = await repo.lockCards(trx, websiteId, [giftCardId]);
  if (!card) throw new Error(`gift card ${giftCardId} is missing`);
  const balance = Math.min(card.amount_minor, card.balance_minor + amountMinor);
  await repo.updateCard(trx, card.id, { balance_minor: balance });
  await event(trx, deps, websiteId, card.id, 'REFUNDED', amountMinor, balance, orderId);
}

/**
 * Disables cards the caller locked: their balance is gone (the event says how much), they pay no
 * more. `orderId`: the refund of the order that bought them, when that is why.
 */
export async function disableLocked(
  trx: Db,
  deps: GiftCardDeps,
  cards: repo.GiftCardRow[],
  orderId: string | null,
): Promise<void> {
  for (const card of cards) {
    await repo.updateCard(trx, card.id, { state: 'DISABLED', balance_minor: 0 });
    await event(trx, deps, card.website_id, card.id, 'DISABLED', card.balance_minor, 0, orderId);
  }
}

/** The owner's Disable: refused for a card already disabled. */
export async function disableGiftCard(
  deps: GiftCardDeps & { db: Db },
  websiteId: string,
  giftCardId: string,
): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const [card] = await repo.lockCards(trx, websiteId, [giftCardId]);
    if (!card) throw new NotFound('There is no such gift card on this site.');
    if (card.state === 'DISABLED') {
      throw new ValidationError(
        `Gift card ${maskedCode(card.last_four)} is already disabled; nothing was changed.`,
      );
    }
    await disableLocked(trx, deps, [card], null);
  });
}

/** A card's money as the wire writes it. */
export const cardMoney = (card: Pick<repo.GiftCardRow, 'currency'>, minor: number) =>
  fromMinorUnits(minor, card.currency);
