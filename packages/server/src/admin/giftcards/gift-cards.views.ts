import { maskedCode } from '../../giftcards/gift-card-codes.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import type { GiftCardEvent, ListedGiftCard } from '../../giftcards/gift-cards.read.ts';
import { cardMoney } from '../../giftcards/gift-cards.service.ts';
import { csrfInput } from '../../pages/forms.ts';
import { html, type Html } from '../../pages/html.ts';
import { notice } from '../../pages/notice.ts';
import { listTable, when } from '../layout.ts';

/** The owner's gift card pages: the list, and one card with its history and Disable. */

const STATE: Record<string, string> = { ACTIVE: 'Active', DISABLED: 'Disabled' };

const shown = (card: ListedGiftCard, minor: number) => {
  const { value, currency } = cardMoney(card, minor);
  return `${value} ${currency}`;
};

function orderLink(site: WebsitesTable, orderId: string | null, number: number | null): Html | string {
  return orderId && number !== null
    ? html`<a href="/sites/${site.id}/orders/${orderId}">#${number}</a>`
    : '—';
}

export function giftCardsListBody(site: WebsitesTable, cards: ListedGiftCard[]): Html {
  const base = `/sites/${site.id}/gift-cards`;
  const rows = cards.map(
    (card) =>
      html`<tr>
        <td><a href="${base}/${card.id}">${maskedCode(card.last_four)}</a></td>
        <td>${shown(card, card.amount_minor)}</td>
        <td>${shown(card, card.balance_minor)}</td>
        <td>${STATE[card.state] ?? card.state}</td>
        <td>${orderLink(site, card.order_id, card.order_number)}</td>
        <td>${when(card.issued_on)}</td>
      </tr>`,
  );
  return html`<p><a href="/sites/${site.id}">Back to ${site.title}</a></p>
    <p>
      The gift cards bought in the store, newest first. A code is shown to its buyer only, once, and kept by
      the store as a digest: here a card is known by its last four characters.
    </p>
    ${
      rows.length
        ? listTable('Gift cards', ['Card', 'Amount', 'Balance', 'State', 'Bought with', 'Issued'], rows)
        : html`<p>No gift cards yet.</p>`
    }`;
}

const EVENT_WORDS: Record<GiftCardEvent['kind'], string> = {
  ISSUED: 'Issued',
  REDEEMED: 'Spent',
  REFUNDED: 'Given back by a refund',
  DISABLED: 'Disabled',
};

function eventAmount(card: ListedGiftCard, event: GiftCardEvent): string {
  const sign = event.kind === 'REDEEMED' || event.kind === 'DISABLED' ? '−' : '+';
  return event.amount_minor ? `${sign}${shown(card, event.amount_minor)}` : shown(card, 0);
}

export function giftCardBody(
  site: WebsitesTable,
  card: ListedGiftCard,
  events: GiftCardEvent[],
  csrf: string,
  message?: { done?: string; error?: string },
): Html {
  const base = `/sites/${site.id}/gift-cards`;
  const rows = events.map(
    (event) =>
      html`<tr>
        <td>${when(event.happened_on)}</td>
        <td>${EVENT_WORDS[event.kind]}</td>
        <td>${eventAmount(card, event)}</td>
        <td>${shown(card, event.balance_minor)}</td>
        <td>${orderLink(site, event.order_id, event.order_number)}</td>
      </tr>`,
  );
  return html`<p><a href="${base}">Back to the gift cards</a></p>
    ${message?.done ? notice(message.done, 'info') : ''} ${notice(message?.error)}
    <dl>
      <dt>Amount</dt>
      <dd>${shown(card, card.amount_minor)}</dd>
      <dt>Balance</dt>
      <dd>${shown(card, card.balance_minor)}</dd>
      <dt>State</dt>
      <dd>${STATE[card.state] ?? card.state}</dd>
      <dt>Bought with</dt>
      <dd>${orderLink(site, card.order_id, card.order_number)}</dd>
      <dt>Issued</dt>
      <dd>${when(card.issued_on)}</dd>
      <dt>Id</dt>
      <dd><code>${card.id}</code></dd>
    </dl>
    <h2>History</h2>
    ${listTable('History', ['When', 'What', 'Amount', 'Balance after', 'Order'], rows)}
    ${
      card.state === 'ACTIVE'
        ? html`<h2>Disable</h2>
            <p>
              A disabled card pays no more: its balance of ${shown(card, card.balance_minor)} is gone, and
              this cannot be undone.
            </p>
            <form method="post" action="${base}/${card.id}/disable">
              ${csrfInput(csrf)}
              <button>Disable gift card ${maskedCode(card.last_four)}</button>
            </form>`
        : ''
    }`;
}
