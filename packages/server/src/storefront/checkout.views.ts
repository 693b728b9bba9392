import { giftCardField, giftCardNote } from './checkout-gift-card.views.ts';
import { websitePath } from '../shared/store-urls.ts';
import { html, type Html } from '../pages/html.ts';
import type { CartView } from './cart.service.ts';
import { itemLabel } from './cart.views.ts';
import { COUNTRIES, type CheckoutErrors, type CheckoutField, type CheckoutForm } from './checkout-form.ts';
import { money } from './store-format.ts';
import { shipsLine } from '../shared/order-model.ts';
import type { PricedCart } from '../discounts/discount-pricing.ts';
import { promoMessage } from './checkout-pricing.ts';
import { notice } from '../pages/notice.ts';
import { csrfInput } from '../pages/forms.ts';
import type { GiftCardPreview } from './checkout-gift-card.ts';

/** The checkout form with the order's summary (the placed order's page: confirmation.views.ts). */

export interface CheckoutPage {
  websiteId: string;
  currency: string;
  csrf: string;
  view: Pick<CartView, 'items' | 'subtotalMinor'>;
  /** The cart priced with its discount (checkout-pricing.ts), shipping included. */
  priced: PricedCart;
  form: CheckoutForm;
  /** The form's key (checkout.service.ts): sent twice, it places one order. */
  attempt: string;
  errors: CheckoutErrors;
  message?: string;
  /** The gift card applied, with what it pays of this total (a refused one is in `errors`). */
  giftCard?: Extract<GiftCardPreview, { applied: true }>;
}

interface FieldSpec {
  label: string;
  type?: 'text' | 'email';
  autocomplete: string;
  optional?: boolean;
  inputmode?: 'numeric' | 'tel';
  placeholder?: string;
}

/** The fields of the order's form; the promo and gift card codes have their own (above it). */
type OrderField = Exclude<CheckoutField, 'countryCode' | 'giftCardCode'>;

const SPECS: Record<OrderField, FieldSpec> = {
  email: { label: 'E-mail', type: 'email', autocomplete: 'email' },
  firstName: { label: 'First name', autocomplete: 'shipping given-name' },
  lastName: { label: 'Last name', autocomplete: 'shipping family-name' },
  address1: { label: 'Street address', autocomplete: 'shipping address-line1' },
  address2: { label: 'Apartment, suite, etc.', autocomplete: 'shipping address-line2', optional: true },
  city: { label: 'Town or city', autocomplete: 'shipping address-level2' },
  state: { label: 'State or province', autocomplete: 'shipping address-level1', optional: true },
  postalCode: { label: 'Postal code', autocomplete: 'shipping postal-code' },
  // A text input: the store's stylesheet styles text fields, and inputmode brings the phone keypad.
  phone: { label: 'Phone', autocomplete: 'shipping tel', inputmode: 'tel', optional: true },
  cardNumber: { label: 'Card number', autocomplete: 'cc-number', inputmode: 'numeric' },
  cardExpiry: { label: 'Expiry date (MM/YY)', autocomplete: 'cc-exp', placeholder: 'MM/YY' },
  cardCvc: { label: 'Security code (CVC)', autocomplete: 'cc-csc', inputmode: 'numeric' },
  promoCode: { label: 'Promo code', autocomplete: 'off', optional: true },
};

/** The card's fields: not `required` in the page, since a gift card that covers the total needs none. */
const CARD_FIELD_NAMES: readonly CheckoutField[] = ['cardNumber', 'cardExpiry', 'cardCvc'];

/** A labelled field, its error under it and tied to it, so a screen reader reads both. */
/** The address fields' autofill names: the billing address's when nothing is shipped. */
const addressKind = (page: CheckoutPage, autocomplete: string) =>
  ships(page) ? autocomplete : autocomplete.replace(/^shipping /, 'billing ');

function field(name: OrderField, page: CheckoutPage): Html {
  const spec = SPECS[name];
  const error = page.errors[name];
  const id = `f-${name}`;
  // The card's number and security code are never sent back: the shopper types them again.
  const value = name === 'cardCvc' || name === 'cardNumber' ? '' : page.form[name];
  return html`<div class="field">
    <label for="${id}"
      ><span>${spec.label}${spec.optional ? html` <span class="meta">(optional)</span>` : ''}</span></label
    >
    <input
      id="${id}"
      name="${name}"
      type="${spec.type ?? 'text'}"
      value="${value}"
      autocomplete="${addressKind(page, spec.autocomplete)}"
      ${spec.inputmode ? html`inputmode="${spec.inputmode}"` : ''}
      ${spec.placeholder ? html`placeholder="${spec.placeholder}"` : ''}
      ${spec.optional || CARD_FIELD_NAMES.includes(name) ? '' : html`required`}
      ${error ? html`aria-invalid="true" aria-describedby="${id}-error"` : ''}
    />
    ${error ? html`<p class="field-error sale" id="${id}-error">${error}</p>` : ''}
  </div>`;
}

function countryField(page: CheckoutPage): Html {
  const error = page.errors.countryCode;
  return html`<div class="field">
    <label for="f-countryCode">Country</label>
    <select
      id="f-countryCode"
      name="countryCode"
      autocomplete="${addressKind(page, 'shipping country')}"
      required
      ${error ? html`aria-invalid="true" aria-describedby="f-countryCode-error"` : ''}
    >
      ${COUNTRIES.map(
        ([code, name]) =>
          html`<option value="${code}" ${code === page.form.countryCode ? html`selected` : ''}>
            ${name}
          </option>`,
      )}
    </select>
    ${error ? html`<p class="field-error sale" id="f-countryCode-error">${error}</p>` : ''}
  </div>`;
}

/**
 * The promo code, its outcome tied to the field, and a button that prices it without ordering: a
 * form of its own, so Enter in the order's fields places the order (its default button) and
 * Enter here applies the code. The order's form carries the code applied in a hidden field.
 */
function promoField(page: CheckoutPage): Html {
  const entered = page.priced.promoCode;
  const error = page.errors.promoCode;
  const note = error ?? (entered ? promoMessage(entered.code, entered.outcome) : undefined);
  const applied = !error && entered?.outcome === 'APPLIED';
  return html`<div class="field">
    <label for="f-promoCode"
      ><span>Promo code <span class="meta">(optional)</span></span></label
    >
    <input
      id="f-promoCode"
      name="promoCode"
      type="text"
      value="${page.form.promoCode}"
      autocomplete="off"
      ${note ? html`aria-describedby="f-promoCode-status"` : ''}
      ${note && !applied ? html`aria-invalid="true"` : ''}
    />
    ${
      note
        ? html`<p class="${applied ? 'meta' : 'field-error sale'}" id="f-promoCode-status" role="status">
            ${note}
          </p>`
        : ''
    }
    <button type="submit" name="action" value="apply">Apply code</button>
  </div>`;
}

/** Whether anything in the order is shipped: a cart of services alone has no shipping. */
const ships = (page: CheckoutPage) => page.view.items.some((item) => shipsLine(item.lineItemType));

function summary(page: CheckoutPage): Html {
  const { priced } = page;
  const freeShipping =
    priced.shippingDiscountMinor > 0 && priced.shippingDiscountMinor === priced.shippingMinor;
  const merchandise =
    priced.discountLines[0] && priced.merchandiseDiscountMinor > 0 ? priced.discountLines[0] : null;
  const amount = (minor: number) => money(minor, page.currency);
  return html`<div class="scroll">
    <table>
      <caption class="visually-hidden">
        Items in your order
      </caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Quantity</th>
          <th scope="col">Total</th>
        </tr>
      </thead>
      <tbody>
        ${page.view.items.map(
          (item) =>
            html`<tr>
              <td>${itemLabel(item)}</td>
              <td>${item.quantity}</td>
              <td>${amount(item.lineTotalMinor)}</td>
            </tr>`,
        )}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colspan="2">Subtotal</th>
          <td>${amount(page.view.subtotalMinor)}</td>
        </tr>
        ${
          merchandise
            ? html`<tr class="discount">
                <th scope="row" colspan="2">Discount: ${merchandise.name}</th>
                <td>−${amount(priced.merchandiseDiscountMinor)}</td>
              </tr>`
            : ''
        }
        ${
          ships(page)
            ? html`<tr>
                <th scope="row" colspan="2">
                  Shipping${freeShipping ? html` <span class="meta">(free: ${priced.discountLines[0]!.name})</span>` : ''}
                </th>
                <td>
                  ${freeShipping ? html`<s>${amount(priced.shippingMinor)}</s> ${amount(0)}` : amount(priced.shippingMinor - priced.shippingDiscountMinor)}
                </td>
              </tr>`
            : ''
        }
        <tr>
          <th scope="row" colspan="2">Total</th>
          <td><strong>${amount(priced.totalMinor)}</strong></td>
        </tr>
      </tfoot>
    </table>
  </div>`;
}

export function checkoutBody(page: CheckoutPage): Html {
  const root = websitePath(page.websiteId);
  const hasErrors = Object.keys(page.errors).length > 0;
  // Only a code that can pay goes on to the order's form: a refused one would only be refused again.
  const applied = page.errors.giftCardCode ? undefined : page.giftCard;
  return html`${notice(page.message)}
    ${hasErrors ? notice('Some details need a fix: see the messages by the fields below.') : ''}
    <h2>Your order</h2>
    ${summary(page)}
    <p><a href="${root}/cart">Change your cart</a></p>
    <form method="post" action="${root}/checkout" class="checkout promo">
      ${csrfInput(page.csrf)}
      <fieldset>
        <legend>Discount</legend>
        ${promoField(page)}
      </fieldset>
      <fieldset>
        <legend>Gift card</legend>
        ${giftCardField(page)}
      </fieldset>
    </form>
    <form method="post" action="${root}/checkout" class="checkout">
      ${csrfInput(page.csrf)}
      <input type="hidden" name="attempt" value="${page.attempt}" />
      <input type="hidden" name="promoCode" value="${page.form.promoCode}" />
      <input type="hidden" name="shownTotal" value="${page.priced.totalMinor}" />
      ${
        applied
          ? html`<input type="hidden" name="giftCardCode" value="${page.form.giftCardCode}" />
              <input type="hidden" name="giftCardPays" value="${applied.paysMinor}" />`
          : ''
      }
      <fieldset>
        <legend>Contact</legend>
        ${field('email', page)}
      </fieldset>
      <fieldset>
        <legend>${ships(page) ? 'Shipping address' : 'Billing address'}</legend>
        ${field('firstName', page)} ${field('lastName', page)} ${field('address1', page)}
        ${field('address2', page)} ${field('city', page)} ${field('state', page)} ${field('postalCode', page)}
        ${countryField(page)} ${field('phone', page)}
      </fieldset>
      <fieldset>
        <legend>Payment</legend>
        <p class="meta" id="test-mode">
          This store is in test mode: no card is charged. Pay with the test card 4242 4242 4242 4242, any
          future expiry date and any 3-digit CVC; 4000 0000 0000 0002 is declined.
        </p>
        ${giftCardNote(page)} ${field('cardNumber', page)} ${field('cardExpiry', page)}
        ${field('cardCvc', page)}
      </fieldset>
      <p><button type="submit">Place order</button></p>
    </form>`;
}
