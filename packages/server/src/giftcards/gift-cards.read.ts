import type { Db } from '../db/database.ts';
import type { GiftCardEventRow, GiftCardRow } from './gift-cards.repo.ts';
import { selectCard, selectEvents } from './gift-cards.repo.ts';

/** Gift cards as the owner's pages read them: with the numbers of the orders they name. */

export type ListedGiftCard = GiftCardRow & { order_number: number | null };
export type GiftCardEvent = GiftCardEventRow & { order_number: number | null };

/** The site's newest cards, at most `limit`, each with the number of the order that bought it. */
export function listGiftCards(db: Db, websiteId: string, limit: number): Promise<ListedGiftCard[]> {
  return db
    .selectFrom('gift_cards')
    .leftJoin('orders', 'orders.id', 'gift_cards.order_id')
    .selectAll('gift_cards')
    .select('orders.order_number')
    .where('gift_cards.website_id', '=', websiteId)
    .orderBy('gift_cards.issued_on', 'desc')
    .orderBy('gift_cards.id', 'desc')
    .limit(limit)
    .execute();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One card with its history, oldest first; undefined for an unknown id or another site's card. */
export async function giftCardWithHistory(
  db: Db,
  websiteId: string,
  id: string,
): Promise<{ card: ListedGiftCard; events: GiftCardEvent[] } | undefined> {
  if (!UUID.test(id)) return undefined;
  const card = await selectCard(db, websiteId, id);
  if (!card) return undefined;
  const events = await selectEvents(db, websiteId, id);
  const orderIds = [
    ...new Set([card.order_id, ...events.map((e) => e.order_id)].filter((x): x is string => x !== null)),
  ];
  const numbers = new Map(
    orderIds.length
      ? (
          await db
            .selectFrom('orders')
            .select(['id', 'order_number'])
            .where('website_id', '=', websiteId)
            .where('id', 'in', orderIds)
            .execute()
        ).map((o) => [o.id, o.order_number])
      : [],
  );
  const number = (orderId: string | null) => (orderId ? (numbers.get(orderId) ?? null) : null);
  return {
    card: { ...card, order_number: number(card.order_id) },
    events: events.map((e) => ({ ...e, order_number: number(e.order_id) })),
  };
}

/** What gift cards paid of an order, by card's last four: for its confirmation page. */
export async function spentOnOrder(
  db: Db,
  websiteId: string,
  orderId: string,
): Promise<{ lastFour: string; amountMinor: number }[]> {
  const rows = await db
    .selectFrom('gift_card_events')
    .innerJoin('gift_cards', 'gift_cards.id', 'gift_card_events.gift_card_id')
    .select(['gift_cards.last_four', 'gift_card_events.amount_minor'])
    .where('gift_card_events.website_id', '=', websiteId)
    .where('gift_card_events.order_id', '=', orderId)
    .where('gift_card_events.kind', '=', 'REDEEMED')
    .orderBy('gift_card_events.happened_on')
    .execute();
  return rows.map((r) => ({ lastFour: r.last_four, amountMinor: r.amount_minor }));
}

/** The last four of each of these cards of the website, by card id: how pages name a card. */
export async function lastFoursOf(db: Db, websiteId: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('gift_cards')
    .select(['id', 'last_four'])
    .where('website_id', '=', websiteId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.last_four]));
}
