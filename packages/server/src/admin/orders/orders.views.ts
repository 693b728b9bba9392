import type { Money } from '../../shared/money.ts';
import type { OwnerOrder, PlacedQuery } from '../../orders/orders.read.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { tableBox, when } from '../layout.ts';
import { notice } from '../../pages/notice.ts';

/** The owner's order list: its filters, a page of orders, and the links to the next pages. */

export const STATUS_FILTERS = [
  { value: '', label: 'All' },
  { value: 'PENDING', label: 'Pending' },
  { value: 'FULFILLED', label: 'Fulfilled' },
  { value: 'CANCELED', label: 'Canceled' },
] as const;

export const STATUS_WORDS: Record<string, string> = {
  PENDING: 'Pending',
  FULFILLED: 'Fulfilled',
  CANCELED: 'Canceled',
};

export const PAYMENT_WORDS: Record<string, string> = {
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

export const money = (m: Money) => `${m.value} ${m.currency}`;

/** The list's filters as the page's query string has them (`status`, `from`, `to`, `q`). */
export type ListFilters = Required<Omit<PlacedQuery, 'before'>>;

/** The list's address with these filters (the empty ones left out) and page position. */
export function ordersUrl(websiteId: string, filters: ListFilters, before?: string): string {
  const query = new URLSearchParams({
    ...(filters.fulfillmentStatus && { status: filters.fulfillmentStatus }),
    ...(filters.from && { from: filters.from }),
    ...(filters.to && { to: filters.to }),
    ...(filters.search && { q: filters.search }),
    ...(before && { before }),
  }).toString();
  return `/sites/${websiteId}/orders${query ? `?${query}` : ''}`;
}

function filterForm(site: WebsitesTable, filters: ListFilters): Html {
  const statusNav = html`<nav aria-label="Filter by fulfillment status">
    <ul class="filters">
      ${STATUS_FILTERS.map((f) => {
        const href = ordersUrl(site.id, { ...filters, fulfillmentStatus: f.value });
        return html`<li>
          ${
            f.value === filters.fulfillmentStatus
              ? html`<a href="${href}" aria-current="page"><strong>${f.label}</strong></a>`
              : html`<a href="${href}">${f.label}</a>`
          }
        </li>`;
      })}
    </ul>
  </nav>`;
  // A GET form: the filters stay in the address, so a filtered list can be bookmarked and paged.
  return html`${statusNav}
    <form class="stack" method="get" action="/sites/${site.id}/orders" role="search" aria-label="Find orders">
      ${filters.fulfillmentStatus ? html`<input type="hidden" name="status" value="${filters.fulfillmentStatus}" />` : ''}
      <label
        >Order number or e-mail
        <input type="text" name="q" value="${filters.search}" maxlength="200" autocomplete="off"
      /></label>
      <label>Placed from (${site.time_zone}) <input type="date" name="from" value="${filters.from}" /></label>
      <label>Placed until <input type="date" name="to" value="${filters.to}" /></label>
      <div class="actions">
        <button>Find orders</button>
        <a href="/sites/${site.id}/orders">Clear filters</a>
      </div>
    </form>`;
}

function ordersTable(site: WebsitesTable, orders: OwnerOrder[]): Html {
  return tableBox(
    'Orders',
    html`<table>
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
        ${orders.map(
          (order) =>
            html`<tr>
              <th scope="row"><a href="/sites/${site.id}/orders/${order.id}">#${order.orderNumber}</a></th>
              <td>${when(order.placedOn)}</td>
              <td>${order.customerEmail ?? '—'}</td>
              <td>${String(order.lineItems.reduce((sum, line) => sum + line.quantity, 0))}</td>
              <td>${money(order.grandTotal)}</td>
              <td>${PAYMENT_WORDS[order.paymentState] ?? order.paymentState}</td>
              <td>${STATUS_WORDS[order.fulfillmentStatus] ?? order.fulfillmentStatus}</td>
            </tr>`,
        )}
      </tbody>
    </table>`,
  );
}

export function ordersListBody(
  site: WebsitesTable,
  view: { orders: OwnerOrder[]; filters: ListFilters; next: string | null; paged: boolean; error?: string },
): Html {
  const { filters } = view;
  const filtering = Boolean(filters.from || filters.to || filters.search);
  const empty = view.paged
    ? 'No older orders.'
    : filtering || filters.fulfillmentStatus
      ? 'No order matches these filters.'
      : 'No orders here yet.';
  const results = view.error
    ? ''
    : view.orders.length
      ? ordersTable(site, view.orders)
      : html`<p>${empty}</p>`;
  const pager =
    view.paged || view.next
      ? html`<nav aria-label="Pages" class="actions">
          ${view.paged ? html`<a href="${ordersUrl(site.id, filters)}">Newest orders</a>` : ''}
          ${view.next ? html`<a href="${ordersUrl(site.id, filters, view.next)}" rel="next">Older orders</a>` : ''}
        </nav>`
      : '';
  return html`<p><a href="/sites/${site.id}">Back to ${site.title}</a></p>
    ${filterForm(site, filters)} ${notice(view.error)}
    <h2>${view.paged ? 'Older orders' : 'Orders'}</h2>
    ${results}${pager}`;
}
