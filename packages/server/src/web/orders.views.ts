import type { Money } from '../catalog/money.ts';
import type { OwnerOrder } from '../commerce/orders.read.ts';
import type { AddressJson } from '../commerce/order-model.ts';
import type { WebsitesTable } from '../db/schema.ts';
import { html, type Html } from './html.ts';
import { notice, when } from './layout.ts';

/** The owner's order pages: the list with its filter, and an order with its fulfill form. */

export const STATUS_FILTERS = [
  { value: '', label: 'All' },
  { value: 'PENDING', label: 'Pending' },
  { value: 'FULFILLED', label: 'Fulfilled' },
  { value: 'CANCELED', label: 'Canceled' },
] as const;

const STATUS_WORDS: Record<string, string> = {
  PENDING: 'Pending',
  FULFILLED: 'Fulfilled',
  CANCELED: 'Canceled',
};

const PAYMENT_WORDS: Record<string, string> = {
  NOT_CHARGED: 'Not charged',
  AUTHORIZED: 'Authorized',
  PAID: 'Paid',
  REFUNDED: 'Refunded',
  PENDING: 'Pending',
  FAILED: 'Failed',
  REFUND_PENDING: 'Refund pending',
  REFUND_FAILED: 'Refund failed',
  PARTIALLY_PAID: 'Partially paid',
};

const money = (m: Money) => `${m.value} ${m.currency}`;

export function ordersListBody(
  site: WebsitesTable,
  view: { orders: OwnerOrder[]; status: string; next: string | null; paged: boolean },
): Html {
  const base = `/sites/${site.id}/orders`;
  const filtered = (status: string, before?: string) => {
    const query = new URLSearchParams({ ...(status && { status }), ...(before && { before }) }).toString();
    return query ? `${base}?${query}` : base;
  };
  const filters = html`<nav aria-label="Filter by fulfillment status">
    <ul class="filters">
      ${STATUS_FILTERS.map(
        (f) =>
          html`<li>
            ${
              f.value === view.status
                ? html`<a href="${filtered(f.value)}" aria-current="page"><strong>${f.label}</strong></a>`
                : html`<a href="${filtered(f.value)}">${f.label}</a>`
            }
          </li>`,
      )}
    </ul>
  </nav>`;
  const table = view.orders.length
    ? html`<div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Order</th>
              <th scope="col">Placed</th>
              <th scope="col">Customer</th>
              <th scope="col">Items</th>
              <th scope="col">Total</th>
              <th scope="col">Payment</th>
              <th scope="col">Fulfillment</th>
            </tr>
          </thead>
          <tbody>
            ${view.orders.map(
              (order) =>
                html`<tr>
                  <th scope="row"><a href="${base}/${order.id}">#${order.orderNumber}</a></th>
                  <td>${when(order.placedOn)}</td>
                  <td>${order.customerEmail ?? '—'}</td>
                  <td>${String(order.lineItems.reduce((sum, line) => sum + line.quantity, 0))}</td>
                  <td>${money(order.grandTotal)}</td>
                  <td>${PAYMENT_WORDS[order.paymentState] ?? order.paymentState}</td>
                  <td>${STATUS_WORDS[order.fulfillmentStatus] ?? order.fulfillmentStatus}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    : html`<p>${view.paged ? 'No older orders.' : 'No orders here yet.'}</p>`;
  const pager =
    view.paged || view.next
      ? html`<nav aria-label="Pages" class="actions">
          ${view.paged ? html`<a href="${filtered(view.status)}">Newest orders</a>` : ''}
          ${view.next ? html`<a href="${filtered(view.status, view.next)}" rel="next">Older orders</a>` : ''}
        </nav>`
      : '';
  return html`<p><a href="/sites/${site.id}">Back to ${site.title}</a></p>
    ${filters}${table}${pager}`;
}

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

export interface FulfillForm {
  carrierName: string;
  service: string;
  trackingNumber: string;
  trackingUrl: string;
  shipDate: string;
}

function fulfillForm(
  site: WebsitesTable,
  order: OwnerOrder,
  csrf: string,
  form: FulfillForm,
  error?: string,
) {
  if (order.fulfillmentStatus === 'CANCELED') {
    return html`${notice(error)}
      <p>This order was canceled; it cannot be shipped.</p>`;
  }
  return html`<h2 id="fulfill">${order.fulfillmentStatus === 'FULFILLED' ? 'Add a shipment' : 'Fulfill'}</h2>
    ${notice(error)}
    <form class="stack" method="post" action="/sites/${site.id}/orders/${order.id}/fulfillments">
      <input type="hidden" name="csrf" value="${csrf}" />
      <label
        >Carrier <input type="text" name="carrierName" value="${form.carrierName}" maxlength="100" required
      /></label>
      <label
        >Service <input type="text" name="service" value="${form.service}" maxlength="100" required
      /></label>
      <label
        >Tracking number
        <input type="text" name="trackingNumber" value="${form.trackingNumber}" maxlength="100" required
      /></label>
      <label
        >Tracking URL (optional)
        <input type="url" name="trackingUrl" value="${form.trackingUrl}" maxlength="2000"
      /></label>
      <label>Ship date <input type="date" name="shipDate" value="${form.shipDate}" required /></label>
      <div class="actions">
        <button>${order.fulfillmentStatus === 'FULFILLED' ? 'Add shipment' : 'Mark as fulfilled'}</button>
      </div>
    </form>`;
}

export function orderBody(
  site: WebsitesTable,
  order: OwnerOrder,
  view: { csrf: string; form: FulfillForm; error?: string; done?: boolean },
): Html {
  const lines = html`<div class="scroll">
    <table>
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
    </table>
  </div>`;
  const totals: [string, Money][] = [
    ['Subtotal', order.subtotal],
    ...order.shippingLines.map((s): [string, Money] => [`Shipping (${s.method})`, s.amount]),
    ...order.discountLines.map((d): [string, Money] => [`Discount (${d.name})`, d.amount]),
    ['Tax', order.taxTotal],
    ['Refunded', order.refundedTotal],
    ['Total', order.grandTotal],
  ];
  const shipments = order.fulfillments.length
    ? html`<table>
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
      </table>`
    : html`<p>Not shipped yet.</p>`;
  return html`<p><a href="/sites/${site.id}/orders">All orders of ${site.title}</a></p>
    ${view.done ? notice('The shipment was saved and the order marked fulfilled.', 'info') : ''}
    <p class="meta">
      Placed ${when(order.placedOn)} · ${order.channelName}${order.testmode ? ' · test order' : ''}
    </p>
    <p>
      Payment: <strong>${PAYMENT_WORDS[order.paymentState] ?? order.paymentState}</strong> · Fulfillment:
      <strong>${STATUS_WORDS[order.fulfillmentStatus] ?? order.fulfillmentStatus}</strong>
    </p>
    <h2>Items</h2>
    ${lines}
    <h2>Totals</h2>
    <table>
      <tbody>
        ${totals.map(
          ([label, amount]) =>
            html`<tr>
              <th scope="row">${label}</th>
              <td>${money(amount)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Customer</h2>
    <p>${order.customerEmail ?? 'No e-mail given.'}</p>
    ${address('Billing address', order.billingAddress)} ${address('Shipping address', order.shippingAddress)}
    <h2>Shipments</h2>
    ${shipments} ${fulfillForm(site, order, view.csrf, view.form, view.error)}`;
}
