import type { WebsitesTable } from '../../db/schema.ts';
import { DOWNLOAD_LIMIT, type LineDownload } from '../../orders/download-links.ts';
import type { OwnerOrder } from '../../orders/orders.read.ts';
import { html, type Html } from '../../pages/html.ts';
import { notice } from '../../pages/notice.ts';
import { tableBox, when } from '../layout.ts';

/**
 * The downloads of an order's DIGITAL lines: how often each was downloaded and until when its
 * newest link works, and a form that e-mails the buyer fresh links.
 */
export function downloadsSection(
  site: WebsitesTable,
  order: OwnerOrder,
  downloads: Map<string, LineDownload>,
  view: { csrf: string; error?: string },
): Html | string {
  const lines = order.lineItems.filter((line) => line.lineItemType === 'DIGITAL');
  if (!lines.length) return '';
  const usable = order.paymentState === 'PAID' && order.fulfillmentStatus !== 'CANCELED';
  return html`<h2 id="downloads">Downloads</h2>
    ${tableBox(
      'Downloads',
      html`<table>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Downloads</th>
            <th scope="col">Newest link works until</th>
          </tr>
        </thead>
        <tbody>
          ${lines.map((line) => {
            const link = downloads.get(line.id);
            return html`<tr>
              <td>${line.productName}</td>
              <td class="download-count">${String(link?.downloads ?? 0)}</td>
              <td>${link ? html`${when(link.expiresAt)}${link.expired ? ' (expired)' : ''}` : 'No link'}</td>
            </tr>`;
          })}
        </tbody>
      </table>`,
    )}
    <p class="meta">
      A link works for 24 hours and ${DOWNLOAD_LIMIT} downloads; a refunded or canceled order’s links stop
      working.
    </p>
    ${notice(view.error)}
    ${
      usable && order.customerEmail
        ? html`<form method="post" action="/sites/${site.id}/orders/${order.id}/download-links">
            <input type="hidden" name="csrf" value="${view.csrf}" />
            <button class="secondary">E-mail the buyer fresh download links</button>
          </form>`
        : ''
    }`;
}
