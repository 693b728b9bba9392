import type { OwnerOrder } from '../../orders/orders.read.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { notice } from '../../pages/notice.ts';
import { LIMITS } from '../../orders/orders.schemas.ts';
import type { FormError } from './order-actions.views.ts';

/**
 * Changes of an order besides shipping and canceling it: marking a fulfilled order pending
 * again, and the buyer's e-mail. Each form shows its own refusal beside it.
 */

export interface ChangesView {
  csrf: string;
  error?: FormError;
  /** The address the e-mail form sent, kept when it was refused. */
  email?: string;
}

const errorOf = (view: ChangesView, form: FormError['form']) =>
  view.error?.form === form ? view.error.message : undefined;

/**
 * The buyer's e-mail, prefilled, for any order: a new address goes to the order and its
 * transaction document.
 */
export function buyerEmailForm(site: WebsitesTable, order: OwnerOrder, view: ChangesView): Html {
  const value = view.email ?? order.customerEmail ?? '';
  return html`<h3 id="email">Buyer’s e-mail</h3>
    ${notice(errorOf(view, 'email'))}
    <form class="stack" method="post" action="/sites/${site.id}/orders/${order.id}/email">
      <input type="hidden" name="csrf" value="${view.csrf}" />
      <label
        >E-mail address
        <input type="email" name="email" value="${value}" maxlength="${LIMITS.email}" required
      /></label>
      <p class="meta">
        The order and its transaction take the new address and apps subscribed to order updates are told. The
        buyer’s contact keeps its own e-mail, and nothing is sent to either address.
      </p>
      <div class="actions"><button>Save</button></div>
    </form>`;
}

/**
 * "Mark as pending" for a FULFILLED order, confirmed by a tick the browser requires and the
 * server checks again. Other orders show only a refusal, when there was one.
 */
export function markPendingForm(site: WebsitesTable, order: OwnerOrder, view: ChangesView): Html {
  const error = errorOf(view, 'pending');
  if (order.fulfillmentStatus !== 'FULFILLED') {
    return error
      ? html`<h2 id="mark-pending">Mark as pending</h2>
          ${notice(error)}
          <p>Only a fulfilled order can be marked pending.</p>`
      : html``;
  }
  return html`<h2 id="mark-pending">Mark as pending</h2>
    ${notice(error)}
    <form class="stack" method="post" action="/sites/${site.id}/orders/${order.id}/mark-pending">
      <input type="hidden" name="csrf" value="${view.csrf}" />
      <p>
        The order goes back to Pending, to be fulfilled again: its shipments stay listed, its fulfilled date
        is cleared, and apps subscribed to order updates are told. The buyer is not e-mailed.
      </p>
      <label
        ><input type="checkbox" name="confirmPending" value="yes" required /> Yes, mark order
        #${order.orderNumber} as pending</label
      >
      <div class="actions"><button>Mark as pending</button></div>
    </form>`;
}
