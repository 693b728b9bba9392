import type { WebsitesTable } from '../../db/schema.ts';
import type { OwnerOrder } from '../../orders/orders.read.ts';
import type { RefundsView } from '../../orders/refundable.ts';
import { html, type Html } from '../../pages/html.ts';
import { notice } from '../../pages/notice.ts';
import { listTable, tableBox, when } from '../layout.ts';
import { money } from './orders.views.ts';

/** The order page's refunds: those made, and the form to refund items, the shipping or an amount. */

/** The refund form's values, as sent (kept when a refund is refused). */
export interface RefundForm {
  /** Items to refund, by line id. */
  quantities: Record<string, number>;
  shipping: boolean;
  amount: string;
  restock: boolean;
}

export const blankRefundForm = (): RefundForm => ({
  quantities: {},
  shipping: false,
  amount: '',
  restock: true,
});

function madeList(refunds: RefundsView['refunds']): Html {
  if (refunds.length === 0) return html``;
  const rows = refunds.map((r) => {
    const what = [
      ...r.lines.map((l) => `${l.quantity} × ${l.productName}`),
      ...(r.shipping ? [`shipping ${money(r.shipping)}`] : []),
    ];
    return html`<tr>
      <td>${when(r.refundedOn)}</td>
      <td>${money(r.amount)}</td>
      <td>${what.length ? what.join(', ') : 'an amount'}</td>
      <td>${r.restocked ? 'yes' : 'no'}</td>
    </tr>`;
  });
  return listTable('Refunds made', ['Refunded', 'Amount', 'For', 'Restocked'], rows);
}

function itemsTable(order: OwnerOrder, left: NonNullable<RefundsView['left']>, form: RefundForm): Html {
  return tableBox(
    'Items to refund',
    html`<table>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Left to refund</th>
          <th scope="col">Refund</th>
        </tr>
      </thead>
      <tbody>
        ${order.lineItems.map((line) => {
          const max = left.quantities.get(line.id) ?? 0;
          const id = `refund-${line.id}`;
          return html`<tr>
            <td><label for="${id}">${line.productName}</label></td>
            <td>${String(max)} of ${String(line.quantity)}</td>
            <td>
              <input
                id="${id}"
                type="number"
                name="qty_${line.id}"
                min="0"
                max="${String(max)}"
                value="${String(form.quantities[line.id] ?? 0)}"
                ${max === 0 ? 'disabled' : ''}
              />
            </td>
          </tr>`;
        })}
      </tbody>
    </table>`,
  );
}

function restockBox(view: RefundsView, checked: boolean): Html {
  if (!view.restockable) return html``;
  return html`<label
    ><input type="checkbox" name="restock" value="1" ${checked ? 'checked' : ''} /> Put the refunded items
    back in stock</label
  >`;
}

export function refundSection(
  site: WebsitesTable,
  order: OwnerOrder,
  view: RefundsView,
  page: { csrf: string; form: RefundForm; error?: string },
): Html {
  const action = `/sites/${site.id}/orders/${order.id}/refunds`;
  const { left } = view;
  const forms = left
    ? html`<p>Left to refund: <strong>${money(left.amount)}</strong>.</p>
        <form class="stack" method="post" action="${action}">
          <input type="hidden" name="csrf" value="${page.csrf}" />
          ${itemsTable(order, left, page.form)}
          ${
            Number(left.shipping.value) > 0
              ? html`<label
                  ><input type="checkbox" name="shipping" value="1" ${page.form.shipping ? 'checked' : ''} />
                  Refund the shipping (${money(left.shipping)})</label
                >`
              : ''
          }
          <label
            >Another amount, in ${left.amount.currency} (optional)
            <input type="text" name="amount" inputmode="decimal" value="${page.form.amount}" maxlength="20"
          /></label>
          ${restockBox(view, page.form.restock)}
          <p class="meta">
            The buyer is e-mailed a refund notice, and apps subscribed to order updates are told.
          </p>
          <div class="actions"><button>Refund</button></div>
        </form>
        <form class="stack" method="post" action="${action}">
          <input type="hidden" name="csrf" value="${page.csrf}" />
          <input type="hidden" name="full" value="1" />
          ${restockBox(view, page.form.restock)}
          <div class="actions"><button>Refund everything left (${money(left.amount)})</button></div>
        </form>`
    : html`<p>${view.why}</p>`;
  return html`<h2 id="refund">Refunds</h2>
    ${notice(page.error)} ${madeList(view.refunds)} ${forms}`;
}
