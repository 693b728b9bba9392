import { websitePath } from '../shared/store-urls.ts';
import { html, type Html } from '../pages/html.ts';
import type { CartItem, CartView } from './cart.service.ts';
import { MAX_QUANTITY } from './cart.ts';
import { money, priceTag, type Price } from './store-format.ts';
import type { PricedCart } from '../discounts/discount-pricing.ts';
import { notice } from '../pages/notice.ts';
import { shipsLine } from '../shared/order-model.ts';
import { csrfInput } from '../pages/forms.ts';

/** The cart page: its lines with a quantity to change and a Remove button each, and the subtotal. */

export interface CartPage {
  websiteId: string;
  currency: string;
  csrf: string;
  view: Pick<CartView, 'items' | 'subtotalMinor'>;
  /** The cart priced with the automatic discount that applies, if one does (checkout-pricing.ts). */
  priced?: PricedCart;
  error?: string;
  info?: string;
}

/** The quantity field of a line: `quantity.<line key>` (cart.ts lineKey), one per line in the one update form. */
export const quantityField = (key: string) => `quantity.${key}`;

export function itemPrice(item: CartItem, currency: string): Price {
  return item.onSale
    ? { minor: item.unitPriceMinor, wasMinor: item.basePriceMinor, currency }
    : { minor: item.unitPriceMinor, currency };
}

/** The item's name, linked to its product page, with the chosen variant's values below. */
export function itemLabel(item: CartItem): Html {
  return html`<a href="${item.path}">${item.productName}</a>
    ${item.options.map((o) => html`<br /><span class="meta">${o.name}: ${o.value}</span>`)}`;
}

function row(item: CartItem, page: CartPage): Html {
  const id = `q-${item.key}`;
  return html`<tr>
    <td>
      ${itemLabel(item)}
      ${item.shortage ? html`<br /><strong class="sale" role="alert">${item.shortage}</strong>` : ''}
    </td>
    <td>${priceTag(itemPrice(item, page.currency))}</td>
    <td>
      <label for="${id}" class="visually-hidden">Quantity of ${item.name}</label>
      <input
        id="${id}"
        type="number"
        name="${quantityField(item.key)}"
        value="${item.quantity}"
        min="0"
        max="${MAX_QUANTITY}"
        inputmode="numeric"
        size="3"
      />
    </td>
    <td>${money(item.lineTotalMinor, page.currency)}</td>
    <td>
      <button type="submit" form="remove-${item.key}" class="link">
        Remove<span class="visually-hidden"> ${item.name}</span>
      </button>
    </td>
  </tr>`;
}

/** The automatic discount's saving and the totals after it; nothing when none applies. */
function discountRows(page: CartPage): Html | string {
  const priced = page.priced;
  const line = priced?.discountLines[0];
  if (!priced || !line) return '';
  const amount = (minor: number) => money(minor, page.currency);
  const free = priced.shippingDiscountMinor > 0;
  return html`<tr class="discount">
      <th scope="row" colspan="3">Discount: ${line.name}</th>
      <td>${priced.merchandiseDiscountMinor ? html`−${amount(priced.merchandiseDiscountMinor)}` : ''}</td>
      <td></td>
    </tr>
    ${
      page.view.items.some((item) => shipsLine(item.lineItemType))
        ? html`<tr>
            <th scope="row" colspan="3">
              Shipping${free ? html` <span class="meta">(free: ${line.name})</span>` : ''}
            </th>
            <td>
              ${free ? html`<s>${amount(priced.shippingMinor)}</s> ${amount(0)}` : amount(priced.shippingMinor)}
            </td>
            <td></td>
          </tr>`
        : ''
    }
    <tr>
      <th scope="row" colspan="3">Total</th>
      <td><strong>${amount(priced.totalMinor)}</strong></td>
      <td></td>
    </tr>`;
}

export function cartBody(page: CartPage): Html {
  const root = websitePath(page.websiteId);
  const { items, subtotalMinor } = page.view;
  const notices = html`${notice(page.error)} ${notice(page.info, 'info')}`;
  if (items.length === 0) {
    return html`${notices}
      <p>Your cart is empty.</p>
      <p><a href="${root}">Continue shopping</a></p>`;
  }
  const csrf = csrfInput(page.csrf);
  return html`${notices}
    <form id="cart-update" method="post" action="${root}/cart/lines">
      ${csrf}
      <div class="scroll">
        <table>
          <caption class="visually-hidden">
            Items in your cart
          </caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Price</th>
              <th scope="col">Quantity</th>
              <th scope="col">Total</th>
              <th scope="col"><span class="visually-hidden">Remove</span></th>
            </tr>
          </thead>
          <tbody>
            ${items.map((item) => row(item, page))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colspan="3">Subtotal</th>
              <td>${money(subtotalMinor, page.currency)}</td>
              <td></td>
            </tr>
            ${discountRows(page)}
          </tfoot>
        </table>
      </div>
      <p class="meta">
        A quantity of 0 removes the item. Shipping, for what is shipped, is added at checkout.
      </p>
      <p><button type="submit" name="action" value="update">Update cart</button></p>
    </form>
    ${items.map(
      (item) =>
        html`<form id="remove-${item.key}" method="post" action="${root}/cart/lines">
          ${csrf}<input type="hidden" name="remove" value="${item.key}" />
        </form>`,
    )}
    <p><a class="button" href="${root}/checkout">Check out</a></p>
    <p><a href="${root}">Continue shopping</a></p>`;
}
