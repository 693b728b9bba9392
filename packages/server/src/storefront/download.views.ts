import type { OwnerOrder } from '../orders/orders.read.ts';
import type { LineDownload } from '../orders/download-links.ts';
import { DOWNLOAD_LIMIT } from '../orders/download-links.ts';
import { html, type Html } from '../pages/html.ts';

/** "4 May 2026, 10:00 UTC": when a link stops working. */
const until = (date: Date) =>
  `${date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })}, ${date.toISOString().slice(11, 16)} UTC`;

/**
 * The confirmation's downloads: a link for each DIGITAL line, with when it stops working; none
 * for an order that is no longer paid (refunded, canceled).
 */
export function downloadsPart(order: OwnerOrder, downloads: Map<string, LineDownload>): Html | string {
  const lines = order.lineItems.filter((line) => line.lineItemType === 'DIGITAL');
  if (!lines.length) return '';
  const usable = order.paymentState === 'PAID' && order.fulfillmentStatus !== 'CANCELED';
  return html`<h2>Your downloads</h2>
    ${
      usable
        ? html`<p>
              Each link works until the time beside it, ${DOWNLOAD_LIMIT} times at most. It is in your
              confirmation e-mail too.
            </p>
            <ul class="downloads">
              ${lines.map((line) => {
                const link = downloads.get(line.id);
                if (!link)
                  return html`<li>${line.productName}: the link is in your confirmation e-mail.</li>`;
                return link.expired
                  ? html`<li>${line.productName}: this link has expired; ask the store for a fresh one.</li>`
                  : html`<li>
                      <a class="download-link" href="${link.url}">Download ${line.productName}</a>
                      <span class="meta">(until ${until(link.expiresAt)})</span>
                    </li>`;
              })}
            </ul>`
        : html`<p>This order was refunded or canceled, so its downloads are no longer available.</p>`
    }`;
}
