import type { Money } from '../../shared/money.ts';
import type { OwnerOrder } from '../../orders/orders.read.ts';
import type { AddressJson } from '../../shared/order-model.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { tableBox, when } from '../layout.ts';
import { orderActions, type FulfillForm, type FormError } from './order-actions.views.ts';
import { money, PAYMENT_WORDS, STATUS_WORDS } from './orders.views.ts';
import { notice } from '../../pages/notice.ts';
import { buyerEmailForm, markPendingForm } from './order-changes.views.ts';
import type { RefundsView } from '../../orders/refundable.ts';
import { refundSection, type RefundForm } from './refund.views.ts';
import { downloadsSection } from './order-downloads.views.ts';
import type { LineDownload } from '../../orders/download-links.ts';
import { paymentsSection, type OrderPayment } from './order-payments.views.ts';

/** An order's page for its owner: lines, totals, addresses, shipments, and what can be done. */

/** The message after a change, from the redirect's query (`?fulfilled=1`, `?canceled=1`). */
export type Done = 'fulfilled' | 'canceled' | 'restocked' | 'refunded' | 'pending' | 'email' | 'links';

const DONE_WORDS: Record<Done, string> = {
  fulfilled: 'The shipment was saved and the order marked fulfilled.',
  canceled: 'The order was canceled.',
  restocked: 'The order was canceled and its items put back in stock.',
  refunded: 'The refund was made, and the buyer e-mailed a refund notice.',
  pending: 'The order was marked pending.',
  email: 'The buyer’s e-mail was changed.',
  links: 'Fresh download links were e-mailed to the buyer.',
};

function address(title: string, a: AddressJson | null): Html {
  if (!a)
    return html`<h3>${title}</h3>
      <p>None given.</p>`;
  const name = [a.firstName, a.lastName].filter(Boolean).join(' ');
  const place = [a.city, [a.state, a.postalCode].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  const lines = [name, a.address1, a.address2, place, a.countryCode, a.phone].filter(Boolean);
  return html`<h3>${title}</h3>
    <address>${lines.map((line, i) => html`${i ? html`<br />` : ''}${line}`)}</address>`;
}

export function orderBody(
  site: WebsitesTable,
  order: OwnerOrder,
  view: {
    csrf: string;
    form: FulfillForm;
    restock: boolean;
    error?: FormError;
    done?: Done;
    email?: string;
    refunds: RefundsView;
    refund: RefundForm;
    downloads?: Map<string, LineDownload>;
    /** The order's payments (its transaction document's), listed when a gift card paid. */
    payments?: OrderPayment[];
  },
): Html {
  const lines = tableBox(
    'Items',
    html`<table>
      <thead>
        <tr>
          <th scope="col">SKU</th>
          <th scope="col">Item</th>
          <th scope="col">Quantity</th>
          <th scope="col">Unit price</th>
        </tr>
      </thead>
      <tbody>
        ${order.lineItems.map(
          (line) =>
            html`<tr>
              <td>${line.sku ?? '—'}</td>
              <td>
                ${line.productName}
                ${[
                  ...(line.variantOptions ?? []).map((o) => `${o.optionName}: ${o.value}`),
                  ...(line.customizations ?? []).map((c) => `${c.label}: ${c.value}`),
                ].map((detail) => html`<br /><span class="meta">${detail}</span>`)}
              </td>
              <td>${String(line.quantity)}</td>
              <td>${money(line.unitPricePaid)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
  const totals: [string, Money][] = [
    ['Subtotal', order.subtotal],
    ...order.shippingLines.map((s): [string, Money] => [`Shipping (${s.method})`, s.amount]),
    ...order.discountLines.map((d): [string, Money] => [`Discount (${d.name})`, d.amount]),
    ['Tax', order.taxTotal],
    ['Refunded', order.refundedTotal],
    ['Total', order.grandTotal],
  ];
  const shipments = order.fulfillments.length
    ? tableBox(
        'Shipments',
        html`<table>
          <thead>
            <tr>
              <th scope="col">Shipped</th>
              <th scope="col">Carrier</th>
              <th scope="col">Service</th>
              <th scope="col">Tracking</th>
            </tr>
          </thead>
          <tbody>
            ${order.fulfillments.map(
              (s) =>
                html`<tr>
                  <td>${s.shipDate.slice(0, 10)}</td>
                  <td>${s.carrierName}</td>
                  <td>${s.service}</td>
                  <td>
                    ${
                      s.trackingUrl && /^https?:\/\//i.test(s.trackingUrl)
                        ? html`<a href="${s.trackingUrl}">${s.trackingNumber}</a>`
                        : s.trackingNumber
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>`,
      )
    : html`<p>Not shipped yet.</p>`;
  return html`<p><a href="/sites/${site.id}/orders">All orders of ${site.title}</a></p>
    ${view.done ? notice(DONE_WORDS[view.done], 'info') : ''}
    <p class="meta">
      Placed ${when(order.placedOn)} · ${order.channelName}${order.testmode ? ' · test order' : ''}
    </p>
    <p>
      Payment: <strong>${PAYMENT_WORDS[order.paymentState] ?? order.paymentState}</strong> · Fulfillment:
      <strong>${STATUS_WORDS[order.fulfillmentStatus] ?? order.fulfillmentStatus}</strong>
    </p>
    <h2>Items</h2>
    ${lines}
    ${downloadsSection(site, order, view.downloads ?? new Map(), {
      csrf: view.csrf,
      error: view.error?.form === 'downloads' ? view.error.message : undefined,
    })}
    <h2>Totals</h2>
    ${tableBox(
      'Totals',
      html`<table>
        <tbody>
          ${totals.map(
            ([label, amount]) =>
              html`<tr>
                <th scope="row">${label}</th>
                <td>${money(amount)}</td>
              </tr>`,
          )}
        </tbody>
      </table>`,
    )}
    ${paymentsSection(site, view.payments ?? [])}
    <h2>Customer</h2>
    <p>${order.customerEmail ?? 'No e-mail given.'}</p>
    ${buyerEmailForm(site, order, view)} ${address('Billing address', order.billingAddress)}
    ${address('Shipping address', order.shippingAddress)}
    <h2>Shipments</h2>
    ${shipments} ${orderActions(site, order, view)} ${markPendingForm(site, order, view)}
    ${refundSection(site, order, view.refunds, {
      csrf: view.csrf,
      form: view.refund,
      error: view.error?.form === 'refund' ? view.error.message : undefined,
    })}`;
}
