import { maskedCode } from '../giftcards/gift-card-codes.ts';
import { downloadsPart } from './download.views.ts';
import type { LineDownload } from '../orders/download-links.ts';
import { toMinorUnits, type Money } from '../shared/money.ts';
import { websitePath } from '../shared/store-urls.ts';
import type { OwnerOrder } from '../orders/orders.read.ts';
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
import type { ReceiptGiftCard } from './gift-card-receipt.ts';
import type { GiftCardPreview } from './checkout-gift-card.ts';

/** The checkout form with the order's summary, and the confirmation of a placed order. */

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

/** A gift card as pages name it: by its last four, the rest of the code never shown. */
const giftCardName = (lastFour: string) => `Gift card ${maskedCode(lastFour)}`;

/** What the applied gift card pays of the total and what is left for the card. */
function giftCardSplit(page: CheckoutPage, card: NonNullable<CheckoutPage['giftCard']>): string {
  const amount = (minor: number) => money(minor, page.currency);
  return (
    `${giftCardName(card.lastFour)} (balance ${amount(card.balanceMinor)}) pays ${amount(card.paysMinor)}; ` +
    `card pays ${amount(card.restMinor)}.`
  );
}

/**
 * The gift card's code beside the promo code, in the same small form: Enter in either field or
 * either button applies both, ordering nothing. Applied, it shows what the card pays of this
 * order; refused, why, as placing the order would. The order's form carries an applied code in a
 * hidden field, as the promo code's, and what it was shown to pay, checked again at the order.
 */
function giftCardField(page: CheckoutPage): Html {
  const error = page.errors.giftCardCode;
  const card = error ? undefined : page.giftCard;
  const described = error ? 'f-giftCardCode-error' : card ? 'f-giftCardCode-status' : 'f-giftCardCode-note';
  return html`<div class="field">
    <label for="f-giftCardCode"
      ><span>Gift card code <span class="meta">(optional)</span></span></label
    >
    <input
      id="f-giftCardCode"
      name="giftCardCode"
      type="text"
      value="${page.form.giftCardCode}"
      autocomplete="off"
      spellcheck="false"
      aria-describedby="${described}"
      ${error ? html`aria-invalid="true"` : ''}
    />
    ${error ? html`<p class="field-error sale" id="f-giftCardCode-error" role="status">${error}</p>` : ''}
    ${card ? html`<p class="meta" id="f-giftCardCode-status" role="status">${giftCardSplit(page, card)}</p>` : ''}
    ${
      error || card
        ? ''
        : html`<p class="meta" id="f-giftCardCode-note">
            A gift card pays first, up to its balance, and the card pays the rest.
          </p>`
    }
    <button type="submit" name="action" value="apply">Apply gift card</button>
  </div>`;
}

/** The payment's note about the gift card applied: whether the card is needed, and for how much. */
function giftCardNote(page: CheckoutPage): Html | string {
  const card = page.errors.giftCardCode ? undefined : page.giftCard;
  if (!card) {
    return html`<p class="meta" id="gift-card-note">
      Have a gift card? Apply its code above: it pays first, and the card pays the rest.
    </p>`;
  }
  const paid = money(card.paysMinor, page.currency);
  return html`<p class="meta" id="gift-card-note">
    ${
      card.restMinor === 0
        ? `${giftCardName(card.lastFour)} pays the whole total of ${paid}: leave the card empty.`
        : `${giftCardName(card.lastFour)} pays ${paid}; the card pays the other ${money(card.restMinor, page.currency)}.`
    }
  </p>`;
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

const addressLines = (a: OwnerOrder['shippingAddress']) =>
  a
    ? [
        [a.firstName, a.lastName].filter(Boolean).join(' '),
        a.address1,
        a.address2,
        [[a.city, a.state].filter(Boolean).join(', '), a.postalCode].filter(Boolean).join(' '),
        COUNTRIES.find(([code]) => code === a.countryCode)?.[1] ?? a.countryCode,
      ].filter((line): line is string => !!line)
    : [];

/** The gift cards the order bought, with their codes when this browser holds them. */
function giftCardsPart(order: OwnerOrder, cards: ReceiptGiftCard[]): Html | string {
  const bought = order.lineItems.filter((line) => line.lineItemType === 'GIFT_CARD');
  if (!bought.length) return '';
  const count = bought.reduce((sum, line) => sum + line.quantity, 0);
  const currency = order.grandTotal.currency;
  return html`<h2>Your gift cards</h2>
    ${
      cards.length
        ? html`<p>
              Each code pays at this store's checkout, up to its balance. Keep them safe: whoever has a code
              can spend it. They are in your confirmation e-mail too.
            </p>
            <ul class="gift-cards">
              ${cards.map(
                (card) =>
                  html`<li>
                    <code class="gift-card-code">${card.code}</code> · ${money(card.amountMinor, currency)}
                  </li>`,
              )}
            </ul>
            ${count > cards.length ? html`<p>The other codes are in your confirmation e-mail.</p>` : ''}`
        : html`<p>The codes of your gift cards are in your confirmation e-mail.</p>`
    }`;
}

/** How a gift card shared the payment: its part first, the card's the rest (checkout.service.ts). */
function giftCardPayment(
  order: OwnerOrder,
  spent: { lastFour: string; amountMinor: number }[],
): Html | string {
  if (!spent.length) return '';
  const currency = order.grandTotal.currency;
  const total = toMinorUnits(order.grandTotal, currency, 'grandTotal');
  const byGiftCard = spent.reduce((sum, s) => sum + s.amountMinor, 0);
  const rest = total - byGiftCard;
  return html`<p>
    ${spent.map((s) => html`Gift card ${maskedCode(s.lastFour)} paid ${money(s.amountMinor, currency)}`)}${
      rest > 0 ? html`, the card ${money(rest, currency)}.` : '.'
    }
  </p>`;
}

/** The confirmation: the order's number first, what was bought, where it goes, the gift cards' codes. */
export function confirmationBody(
  websiteId: string,
  order: OwnerOrder,
  giftCards: ReceiptGiftCard[] = [],
  downloads: Map<string, LineDownload> = new Map(),
  /** What gift cards paid of it (giftcards/gift-cards.read.ts spentOnOrder). */
  paidByGiftCard: { lastFour: string; amountMinor: number }[] = [],
): Html {
  const root = websitePath(websiteId);
  const amount = (m: Money) => money(toMinorUnits(m, m.currency, 'amount'), m.currency);
  return html`<p class="notice info" role="status">
      Thank you! Your order number is <strong class="order-number">${order.orderNumber}</strong>.
    </p>
    <h2>What you ordered</h2>
    <ul>
      ${order.lineItems.map(
        (line) =>
          html`<li>
            ${line.quantity} × ${line.productName}
            ${(line.variantOptions ?? []).map((o) => html`<span class="meta">· ${o.optionName}: ${o.value}</span>`)}
          </li>`,
      )}
    </ul>
    <p>
      Total paid:
      <strong>${amount(order.grandTotal)}</strong>${order.testmode ? ' (test mode: no card was charged)' : ''}
    </p>
    ${giftCardPayment(order, paidByGiftCard)}
    ${
      order.shippingAddress
        ? html`<h2>Shipping to</h2>
            <address>
              ${addressLines(order.shippingAddress).map((line, i) => html`${i ? html`<br />` : ''}${line}`)}
            </address>`
        : html`<p>Nothing in this order is shipped.</p>`
    }
    ${giftCardsPart(order, giftCards)} ${downloadsPart(order, downloads)}
    <p>Placed with the e-mail address ${order.customerEmail}.</p>
    <p><a href="${root}">Continue shopping</a></p>`;
}
