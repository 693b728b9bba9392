import type { LineDownload } from '../orders/download-links.ts';
import type { OwnerOrder } from '../orders/orders.read.ts';
import { html, type Html } from '../pages/html.ts';
import { toMinorUnits, type Money } from '../shared/money.ts';
import { websitePath } from '../shared/store-urls.ts';
import { COUNTRIES } from './checkout-form.ts';
import { giftCardName } from './checkout-gift-card.views.ts';
import { downloadsPart } from './download.views.ts';
import type { ReceiptGiftCard } from './gift-card-receipt.ts';
import { money } from './store-format.ts';

/** The confirmation of a placed order: what was bought, how it was paid, where it goes. */

const addressLines = (a: OwnerOrder['shippingAddress']) =>
  a
    ? [
        [a.firstName, a.lastName].filter(Boolean).join(' '),
        a.address1,
        a.address2,
        [[a.city, a.state].filter(Boolean).join(', '), a.postalCode].filter(Boolean).join(' '),
        COUNTRIES.find(([code]) => code === a.countryCode)?.[1] ?? a.countryCode,
      ].filter((line): line is string => !!line)
    : [];

/** The gift cards the order bought, with their codes when this browser holds them. */
function giftCardsPart(order: OwnerOrder, cards: ReceiptGiftCard[]): Html | string {
  const bought = order.lineItems.filter((line) => line.lineItemType === 'GIFT_CARD');
  if (!bought.length) return '';
  const count = bought.reduce((sum, line) => sum + line.quantity, 0);
  const currency = order.grandTotal.currency;
  return html`<h2>Your gift cards</h2>
    ${
      cards.length
        ? html`<p>
              Each code pays at this store's checkout, up to its balance. Keep them safe: whoever has a code
              can spend it. They are in your confirmation e-mail too.
            </p>
            <ul class="gift-cards">
              ${cards.map(
                (card) =>
                  html`<li>
                    <code class="gift-card-code">${card.code}</code> · ${money(card.amountMinor, currency)}
                  </li>`,
              )}
            </ul>
            ${count > cards.length ? html`<p>The other codes are in your confirmation e-mail.</p>` : ''}`
        : html`<p>The codes of your gift cards are in your confirmation e-mail.</p>`
    }`;
}

/** How a gift card shared the payment: its part first, the card's the rest (checkout.service.ts). */
function giftCardPayment(
  order: OwnerOrder,
  spent: { lastFour: string; amountMinor: number }[],
): Html | string {
  if (!spent.length) return '';
  const currency = order.grandTotal.currency;
  const total = toMinorUnits(order.grandTotal, currency, 'grandTotal');
  const byGiftCard = spent.reduce((sum, s) => sum + s.amountMinor, 0);
  const rest = total - byGiftCard;
  return html`<p>
    ${spent.map((s) => html`${giftCardName(s.lastFour)} paid ${money(s.amountMinor, currency)}`)}${
      rest > 0 ? html`, the card ${money(rest, currency)}.` : '.'
    }
  </p>`;
}

/** The confirmation: the order's number first, what was bought, where it goes, the gift cards' codes. */
export function confirmationBody(
  websiteId: string,
  order: OwnerOrder,
  giftCards: ReceiptGiftCard[] = [],
  downloads: Map<string, LineDownload> = new Map(),
  /** What gift cards paid of it (giftcards/gift-cards.read.ts spentOnOrder). */
  paidByGiftCard: { lastFour: string; amountMinor: number }[] = [],
): Html {
  const root = websitePath(websiteId);
  const amount = (m: Money) => money(toMinorUnits(m, m.currency, 'amount'), m.currency);
  return html`<p class="notice info" role="status">
      Thank you! Your order number is <strong class="order-number">${order.orderNumber}</strong>.
    </p>
    <h2>What you ordered</h2>
    <ul>
      ${order.lineItems.map(
        (line) =>
          html`<li>
            ${line.quantity} × ${line.productName}
            ${(line.variantOptions ?? []).map((o) => html`<span class="meta">· ${o.optionName}: ${o.value}</span>`)}
          </li>`,
      )}
    </ul>
    <p>
      Total paid:
      <strong>${amount(order.grandTotal)}</strong>${order.testmode ? ' (test mode: no card was charged)' : ''}
    </p>
    ${giftCardPayment(order, paidByGiftCard)}
    ${
      order.shippingAddress
        ? html`<h2>Shipping to</h2>
            <address>
              ${addressLines(order.shippingAddress).map((line, i) => html`${i ? html`<br />` : ''}${line}`)}
            </address>`
        : html`<p>Nothing in this order is shipped.</p>`
    }
    ${giftCardsPart(order, giftCards)} ${downloadsPart(order, downloads)}
    <p>Placed with the e-mail address ${order.customerEmail}.</p>
    <p><a href="${root}">Continue shopping</a></p>`;
}
