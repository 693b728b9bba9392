/** Gift cards and their history (migration 031; see schema.ts and giftcards/). */
type Timestamp = Date;

export type GiftCardState = 'ACTIVE' | 'DISABLED';
export type GiftCardEventKind = 'ISSUED' | 'REDEEMED' | 'REFUNDED' | 'DISABLED';

export interface GiftCardsTable {
  /** A UUID: the transaction document's `payments[].giftCardId` (platform-surface 2.2.3). */
  id: string;
  website_id: string;
  /** SHA-256 of the code as printed (giftcards/gift-card-codes.ts); the code itself is never stored. */
  code_digest: Buffer;
  last_four: string;
  currency: string;
  amount_minor: number;
  balance_minor: number;
  state: GiftCardState;
  /** The order that bought it, and the order line. */
  order_id: string | null;
  line_id: string | null;
  /** The website's time. */
  issued_on: Timestamp;
}

export interface GiftCardEventsTable {
  id: string;
  website_id: string;
  gift_card_id: string;
  kind: GiftCardEventKind;
  amount_minor: number;
  /** The balance after the event. */
  balance_minor: number;
  order_id: string | null;
  happened_on: Timestamp;
}
