import { fromMinorUnits } from '../shared/money.ts';
import type { Dashboard } from '../analytics/dashboard.service.ts';
import type { WebsitesTable } from '../db/schema.ts';
import { html, type Html } from '../pages/html.ts';
import { tableBox } from './layout.ts';

/** A site's dashboard: products, orders to ship, and the last 30 days' revenue as a small chart. */

const WIDTH = 600;
const HEIGHT = 160;
/** Room under the bars for the first and last day's labels. */
const AXIS = 20;
const GAP = 4;

const amount = (minor: number, currency: string) => `${fromMinorUnits(minor, currency).value} ${currency}`;

/**
 * The revenue by day as bars, drawn on the server: an inline SVG (attributes, no style, so the
 * pages' CSP holds) named by its <title> and <desc>, each bar with its own <title>; the same
 * figures follow as a table for readers of text.
 */
function revenueChart(revenue: Dashboard['revenue']): Html {
  const { days, currency } = revenue;
  const top = Math.max(...days.map((d) => d.totalMinor));
  const plot = HEIGHT - AXIS;
  const slot = WIDTH / days.length;
  const summary =
    `Revenue by day from ${days[0]!.day} to ${days[days.length - 1]!.day}: ` +
    `${amount(revenue.totalMinor, currency)} in all; the best day ${top > 0 ? amount(top, currency) : 'none'}.`;
  const bars = days.map((d, i) => {
    // A day with sales stays visible however small it is next to the best one.
    const h = top > 0 && d.totalMinor > 0 ? Math.max(2, Math.round((d.totalMinor / top) * (plot - 4))) : 0;
    const x = (i * slot + GAP / 2).toFixed(1);
    const label = `${d.day}: ${amount(d.totalMinor, currency)}, ${d.orders} ${d.orders === 1 ? 'order' : 'orders'}`;
    return html`<rect x="${x}" y="${plot - h}" width="${(slot - GAP).toFixed(1)}" height="${h}" fill="#0a58ca"
      ><title>${label}</title></rect
    >`;
  });
  return html`<svg
      class="chart"
      viewBox="0 0 ${WIDTH} ${HEIGHT}"
      width="100%"
      role="img"
      aria-labelledby="revenue-title revenue-desc"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title id="revenue-title">Revenue of the last ${days.length} days</title>
      <desc id="revenue-desc">${summary}</desc>
      <line x1="0" y1="${plot}" x2="${WIDTH}" y2="${plot}" stroke="#8c8f94" stroke-width="1" />
      ${bars}
      <text x="0" y="${HEIGHT - 4}" font-size="12" fill="#1d2327">${days[0]!.day}</text>
      <text x="${WIDTH}" y="${HEIGHT - 4}" font-size="12" fill="#1d2327" text-anchor="end">
        ${days[days.length - 1]!.day}
      </text>
    </svg>
    <details>
      <summary>Revenue by day, as a table</summary>
      ${tableBox(
        'Revenue by day',
        html`<table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Orders</th>
              <th scope="col">Revenue</th>
            </tr>
          </thead>
          <tbody>
            ${days.map(
              (d) =>
                html`<tr>
                  <th scope="row">${d.day}</th>
                  <td>${d.orders}</td>
                  <td>${amount(d.totalMinor, currency)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`,
      )}
    </details>`;
}

export function dashboardBody(site: WebsitesTable, dashboard: Dashboard): Html {
  const { products, awaitingFulfillment, revenue } = dashboard;
  const waiting = `${awaitingFulfillment} ${awaitingFulfillment === 1 ? 'order' : 'orders'} awaiting fulfillment`;
  return html`<h2>At a glance</h2>
    <div class="card">
      <h3><a href="/sites/${site.id}/products">Products</a></h3>
      <p><strong>${products.visible}</strong> visible · <strong>${products.hidden}</strong> hidden</p>
    </div>
    <div class="card">
      <h3>Orders</h3>
      <p><a href="/sites/${site.id}/orders?status=PENDING">${waiting}</a></p>
    </div>
    <div class="card">
      <h3>Revenue, last ${revenue.days.length} days</h3>
      <p>
        <strong>${amount(revenue.totalMinor, revenue.currency)}</strong> from ${revenue.orders}
        ${revenue.orders === 1 ? 'order' : 'orders'}, refunds taken off and canceled orders left out; days in
        ${revenue.timeZone}.
      </p>
      ${revenueChart(revenue)}
    </div>`;
}
