import { maskedCode } from '../giftcards/gift-card-codes.ts';
import { html, type Html } from '../pages/html.ts';
import type { CheckoutPage } from './checkout.views.ts';
import { money } from './store-format.ts';

/** The checkout's gift card: its field beside the promo code, and the payment's note of it. */

/** A gift card as pages name it: by its last four, the rest of the code never shown. */
export const giftCardName = (lastFour: string) => `Gift card ${maskedCode(lastFour)}`;

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
export function giftCardField(page: CheckoutPage): Html {
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
export function giftCardNote(page: CheckoutPage): Html | string {
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
