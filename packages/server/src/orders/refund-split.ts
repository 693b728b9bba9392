import type { Db } from '../db/database.ts';
import type { RefundedLine } from '../db/commerce-schema.ts';
import { disableLocked, restoreGiftCard } from '../giftcards/gift-cards.service.ts';
import { lockCards, selectCardsOfOrder } from '../giftcards/gift-cards.repo.ts';
import { ValidationError } from '../shared/errors.ts';
import { decimalToMinorUnits } from '../shared/money.ts';
import { withRefund } from '../transactions/transaction-document.ts';
import type { StoredDocumentT } from '../transactions/transactions.schemas.ts';
import type { OrderRow } from './order-document.ts';
import type { OrderDeps } from './place-order.ts';

/**
 * Refunds of orders that gift cards touch (Emporium's choices, docs/orders.md "Gift cards"):
 * - an order paid by gift card and card: a refund gives back the card's payment first, then the
 *   gift card's, whose balance grows by its part (its history says so); each payment lists its
 *   own part under `refunds`, so the parts add up to the refund to the cent;
 * - an order that bought gift cards: refunding a gift card's item disables one of the line's
 *   cards still unspent (its balance gone, its history says so); when the line has too few
 *   unspent cards the refund is refused, as the money was spent already.
 */

/** One payment's part of a refund: the document's payment index and its amount. */
export interface RefundPart {
  paymentIndex: number;
  amountMinor: number;
  giftCardId: string | null;
}

/** The refund split over the payments: the card's first, then the gift card's, each up to what is left of it. */
export function splitRefund(document: StoredDocumentT, amountMinor: number): RefundPart[] {
  const order = document.payments
    .map((payment, paymentIndex) => ({ payment, paymentIndex }))
    .sort((a, b) => Number(a.payment.giftCardId !== null) - Number(b.payment.giftCardId !== null));
  const parts: RefundPart[] = [];
  let rest = amountMinor;
  for (const { payment, paymentIndex } of order) {
    if (rest === 0) break;
    const currency = payment.amount.currency;
    const left =
      decimalToMinorUnits(payment.amount.value, currency) -
      decimalToMinorUnits(payment.refundedAmount.value, currency);
    const part = Math.min(rest, Math.max(0, left));
    if (part > 0) parts.push({ paymentIndex, amountMinor: part, giftCardId: payment.giftCardId });
    rest -= part;
  }
  if (rest !== 0) throw new Error('a refund within what the payments took');
  return parts;
}

/**
 * The document with each part of the refund under its payment, and the gift cards that paid
 * given their parts back (how much: the refund notice says so). The first part carries the refund's id (the refund row's), the others
 * one each; the card's part the refund's gateway id (`re_test_…`), a gift card's its own (`gc_test_…`).
 */
export async function refundPayments(
  trx: Db,
  deps: OrderDeps,
  order: OrderRow,
  document: StoredDocumentT,
  refund: { id: string; refundedOn: Date; externalTransactionId: string; amountMinor: number },
): Promise<{ document: StoredDocumentT; giftCardMinor: number }> {
  let written = document;
  let giftCardMinor = 0;
  let first = true;
  for (const part of splitRefund(document, refund.amountMinor)) {
    written = withRefund(
      written,
      {
        id: first ? refund.id : deps.ids.uuid(),
        amountMinor: part.amountMinor,
        refundedOn: refund.refundedOn,
        externalTransactionId:
          part.giftCardId === null ? refund.externalTransactionId : `gc_test_${deps.ids.objectId()}`,
      },
      part.paymentIndex,
    );
    if (part.giftCardId) {
      await restoreGiftCard(trx, deps, order.website_id, part.giftCardId, part.amountMinor, order.id);
      giftCardMinor += part.amountMinor;
    }
    first = false;
  }
  return { document: written, giftCardMinor };
}

/** Disables a card of each gift card item refunded; refused when a line has too few unspent. */
export async function refundBoughtGiftCards(
  trx: Db,
  deps: OrderDeps,
  order: OrderRow,
  lines: RefundedLine[],
): Promise<void> {
  const wanted = lines.filter((refunded) =>
    order.document.lineItems.some((l) => l.id === refunded.lineId && l.lineItemType === 'GIFT_CARD'),
  );
  if (!wanted.length) return;
  const bought = await selectCardsOfOrder(trx, order.website_id, order.id);
  const locked = await lockCards(
    trx,
    order.website_id,
    bought.map((card) => card.id),
  );
  for (const refunded of wanted) {
    const unspent = locked.filter(
      (card) =>
        card.line_id === refunded.lineId &&
        card.state === 'ACTIVE' &&
        card.balance_minor === card.amount_minor,
    );
    if (unspent.length < refunded.quantity) {
      const name =
        order.document.lineItems.find((l) => l.id === refunded.lineId)?.productName ?? 'A gift card';
      throw new ValidationError(
        `${name}: ${unspent.length} of its gift cards are unspent and can be refunded, not ${refunded.quantity}; a gift card already used (or disabled) cannot be refunded. Nothing was changed.`,
      );
    }
    await disableLocked(trx, deps, unspent.slice(0, refunded.quantity), order.id);
  }
}
