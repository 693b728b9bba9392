import { maskedCode } from '../../giftcards/gift-card-codes.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import type { Money } from '../../shared/money.ts';
import type { StoredDocumentT } from '../../transactions/transactions.schemas.ts';
import { html, type Html } from '../../pages/html.ts';
import { listTable } from '../layout.ts';
import { money } from './orders.views.ts';

/**
 * The payments of an order a gift card paid, from its transaction document: each gift card (by
 * its last four, linked to its page) and the card, with what was paid and what of it was refunded
 * (refund-split.ts gives back the card's payment first). An order without a gift card has one
 * payment, its total, so the page shows none.
 */

export interface OrderPayment {
  /** The gift card that paid, or null for the card. */
  giftCard: { id: string; lastFour: string | null } | null;
  /** The card's brand as the document has it (`VISA`), null when unknown. */
  cardType: string | null;
  amount: Money;
  refunded: Money;
}

/** The document's payments, each gift card named by its last four (`lastFours`, by card id). */
export function orderPayments(
  document: StoredDocumentT | undefined,
  lastFours: Map<string, string>,
): OrderPayment[] {
  return (document?.payments ?? []).map((payment) => ({
    giftCard: payment.giftCardId
      ? { id: payment.giftCardId, lastFour: lastFours.get(payment.giftCardId) ?? null }
      : null,
    cardType: payment.creditCardType,
    amount: payment.amount,
    refunded: payment.refundedAmount,
  }));
}

const BRANDS: Record<string, string> = {
  VISA: 'Visa',
  MASTERCARD: 'Mastercard',
  AMEX: 'American Express',
  DISCOVER: 'Discover',
  JCB: 'JCB',
  OTHER: 'another brand',
};

function paymentName(site: WebsitesTable, payment: OrderPayment): Html | string {
  const card = payment.giftCard;
  if (!card) return payment.cardType ? `Card (${BRANDS[payment.cardType] ?? payment.cardType})` : 'Card';
  if (!card.lastFour) return 'Gift card';
  return html`<a href="/sites/${site.id}/gift-cards/${card.id}">Gift card ${maskedCode(card.lastFour)}</a>`;
}

export function paymentsSection(site: WebsitesTable, payments: OrderPayment[]): Html | string {
  if (!payments.some((p) => p.giftCard)) return '';
  const rows = payments.map(
    (payment) =>
      html`<tr>
        <td>${paymentName(site, payment)}</td>
        <td>${money(payment.amount)}</td>
        <td>${money(payment.refunded)}</td>
      </tr>`,
  );
  return html`<h2>Payments</h2>
    ${listTable('Payments', ['Paid with', 'Amount', 'Refunded'], rows)}`;
}
