import type { OwnerOrder } from '../../orders/orders.read.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { notice } from '../../pages/notice.ts';
import type { RefundsView } from '../../orders/refundable.ts';
import { money } from './orders.views.ts';

/** What the owner can do with an order from its page: ship it (fulfill) or cancel it (and refund). */

export interface FulfillForm {
  carrierName: string;
  service: string;
  trackingNumber: string;
  trackingUrl: string;
  shipDate: string;
  /** Send the buyer a shipping notice (the API's shouldSendNotification). */
  notify: boolean;
}

/** The form whose answer failed, and why: shown above that form (pending, email: order-changes.views.ts). */
export interface FormError {
  form: 'fulfill' | 'cancel' | 'pending' | 'email' | 'refund' | 'downloads';
  message: string;
}

/** The fulfil form as a page first shows it: one shipment, shipped `today`, the buyer notified. */
export function blankFulfillForm(today: string): FulfillForm {
  return { carrierName: '', service: '', trackingNumber: '', trackingUrl: '', shipDate: today, notify: true };
}

function fulfillForm(
  site: WebsitesTable,
  order: OwnerOrder,
  csrf: string,
  form: FulfillForm,
  error?: string,
) {
  const more = order.fulfillmentStatus === 'FULFILLED';
  return html`<h2 id="fulfill">${more ? 'Add a shipment' : 'Fulfill'}</h2>
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
      <label
        ><input type="checkbox" name="notify" value="1" ${form.notify ? 'checked' : ''} /> E-mail the buyer a
        shipping notice</label
      >
      <div class="actions">
        <button>${more ? 'Add shipment' : 'Mark as fulfilled'}</button>
      </div>
    </form>`;
}

/** Restocking is offered only for an order whose placing took stock, or may have. */
function restockChoice(order: OwnerOrder, items: number, restock: boolean): Html {
  if (order.stockTaken === false) {
    return html`<p class="meta">
      This order took no stock when it was placed (imported without inventoryBehavior DEDUCT), so canceling it
      puts none back.
    </p>`;
  }
  const label = `Restock items: put ${items} ${items === 1 ? 'item' : 'items'} back in stock`;
  return html`<label
      ><input type="checkbox" name="restock" value="1" ${restock ? 'checked' : ''} /> ${label}</label
    >
    ${
      order.stockTaken === null
        ? html`<p class="meta">
            This order was placed before Emporium recorded whether it took stock: tick to put its items back
            only if it did.
          </p>`
        : ''
    }`;
}

/**
 * Canceling needs two ticks: "Restock items" (on unless the owner unticks it) and the
 * confirmation, which the browser requires and the server checks again, since the cancel cannot
 * be undone.
 */
/** A paid order's cancel offers to refund what is left of the payment, ticked. */
function refundChoice(refunds: RefundsView): Html {
  if (!refunds.left) return html``;
  const what = refunds.refunds.length ? 'left of the payment' : 'paid';
  return html`<label
    ><input type="checkbox" name="refund" value="1" checked /> Refund the ${money(refunds.left.amount)}
    ${what}</label
  >`;
}

function cancelForm(
  site: WebsitesTable,
  order: OwnerOrder,
  view: { csrf: string; restock: boolean; refunds: RefundsView },
  error?: string,
) {
  const { csrf, restock } = view;
  // What refunds already put back in stock, a cancel does not put back again.
  const restocked = view.refunds.refunds
    .filter((r) => r.restocked)
    .flatMap((r) => r.lines)
    .reduce((sum, l) => sum + l.quantity, 0);
  const items =
    order.lineItems
      .filter((line) => line.lineItemType !== 'CUSTOM' && line.variantId)
      .reduce((sum, line) => sum + line.quantity, 0) - restocked;
  return html`<h2 id="cancel">Cancel the order</h2>
    ${notice(error)}
    <form class="stack" method="post" action="/sites/${site.id}/orders/${order.id}/cancel">
      <input type="hidden" name="csrf" value="${csrf}" />
      <p>
        The order is marked canceled, its transaction voided, apps subscribed to order updates are told, and
        the buyer is e-mailed a cancellation notice. Money moves only with "Refund" ticked.
      </p>
      <fieldset>
        <legend>Cancel order #${order.orderNumber}</legend>
        ${restockChoice(order, items, restock)} ${refundChoice(view.refunds)}
        <label
          ><input type="checkbox" name="confirm" value="yes" required /> Yes, cancel order
          #${order.orderNumber}; this cannot be undone</label
        >
      </fieldset>
      <div class="actions"><button class="danger">Cancel order</button></div>
    </form>`;
}

/** The forms an order's status allows, the failed one with its message and values. */
export function orderActions(
  site: WebsitesTable,
  order: OwnerOrder,
  view: { csrf: string; form: FulfillForm; restock: boolean; error?: FormError; refunds: RefundsView },
): Html {
  const error = (form: FormError['form']) => (view.error?.form === form ? view.error.message : undefined);
  switch (order.fulfillmentStatus) {
    case 'CANCELED':
      return html`${notice(error('fulfill') ?? error('cancel'))}
        <p>This order was canceled; it cannot be shipped.</p>`;
    case 'FULFILLED':
      return html`${fulfillForm(site, order, view.csrf, view.form, error('fulfill'))}
        <h2 id="cancel">Cancel the order</h2>
        ${notice(error('cancel'))}
        <p>A fulfilled order has shipped and cannot be canceled.</p>`;
    default:
      return html`${fulfillForm(site, order, view.csrf, view.form, error('fulfill'))}
      ${cancelForm(site, order, view, error('cancel'))}`;
  }
}
