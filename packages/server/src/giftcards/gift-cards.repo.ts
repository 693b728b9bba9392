import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { GiftCardEventsTable, GiftCardsTable } from '../db/schema.ts';

/** SQL of gift cards and their history (giftcards/gift-cards.service.ts). */

export type GiftCardRow = Selectable<GiftCardsTable>;
export type GiftCardEventRow = Selectable<GiftCardEventsTable>;

export async function insertGiftCard(db: Db, row: Insertable<GiftCardsTable>): Promise<void> {
  await db.insertInto('gift_cards').values(row).execute();
}

export async function insertEvent(db: Db, row: Insertable<GiftCardEventsTable>): Promise<void> {
  await db.insertInto('gift_card_events').values(row).execute();
}

/** The website's card with this code's digest, locked to the transaction's end (a spend, a refund). */
export function lockByDigest(
  trx: Db,
  websiteId: string,
  codeDigest: Buffer,
): Promise<GiftCardRow | undefined> {
  return trx
    .selectFrom('gift_cards')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('code_digest', '=', codeDigest)
    .forUpdate()
    .executeTakeFirst();
}

/** Cards by id, locked, in id order so two transactions never lock them crosswise. */
export function lockCards(trx: Db, websiteId: string, ids: string[]): Promise<GiftCardRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return trx
    .selectFrom('gift_cards')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
}

export function findByDigest(
  db: Db,
  websiteId: string,
  codeDigest: Buffer,
): Promise<GiftCardRow | undefined> {
  return db
    .selectFrom('gift_cards')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('code_digest', '=', codeDigest)
    .executeTakeFirst();
}

export function selectCard(db: Db, websiteId: string, id: string): Promise<GiftCardRow | undefined> {
  return db
    .selectFrom('gift_cards')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The website's cards, newest issued first. */
export function selectCards(db: Db, websiteId: string, limit: number): Promise<GiftCardRow[]> {
  return db
    .selectFrom('gift_cards')
    .selectAll()
    .where('website_id', '=', websiteId)
    .orderBy('issued_on', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The cards an order bought, in the order they were issued. */
export function selectCardsOfOrder(db: Db, websiteId: string, orderId: string): Promise<GiftCardRow[]> {
  return db
    .selectFrom('gift_cards')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('order_id', '=', orderId)
    .orderBy('issued_on')
    .orderBy('line_id')
    .orderBy('id')
    .execute();
}

export function selectEvents(db: Db, websiteId: string, giftCardId: string): Promise<GiftCardEventRow[]> {
  return db
    .selectFrom('gift_card_events')
    .selectAll()
    .where('website_id', '=', websiteId)
    .where('gift_card_id', '=', giftCardId)
    .orderBy('happened_on')
    .orderBy('id')
    .execute();
}

export async function updateCard(
  db: Db,
  id: string,
  set: Partial<Pick<GiftCardsTable, 'balance_minor' | 'state'>>,
): Promise<void> {
  await db.updateTable('gift_cards').set(set).where('id', '=', id).execute();
}
