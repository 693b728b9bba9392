import type { DiscountT } from '../../discounts/discounts.schemas.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { html, type Html } from '../../pages/html.ts';
import { tableBox } from '../layout.ts';
import {
  checkbox,
  formNotice,
  select,
  stateOf,
  textField,
  type FormState,
} from '../products/product-fields.ts';
import type { FormError, Values } from '../products/product-form.ts';
import { notice } from '../../pages/notice.ts';
import { csrfInput } from '../../pages/forms.ts';

/** The owner's discount pages: the list, the create and edit form, and the delete confirmation. */

const CRITERIA = [
  { value: 'ANY_ORDER', label: 'Any order' },
  { value: 'CART_TOTAL', label: 'Cart total of at least an amount' },
  { value: 'PRODUCT', label: 'One product' },
  { value: 'BUY_X_GET_Y', label: 'Buy X, get Y' },
] as const;
const TEMPLATES = [
  { value: 'PERCENTAGE', label: 'Percentage off' },
  { value: 'FIXED_AMOUNT', label: 'Fixed amount off' },
  { value: 'FREE_SHIPPING', label: 'Free shipping' },
  { value: 'BUY_X_GET_Y_PERCENTAGE', label: 'Buy X, get Y: percentage off Y' },
  { value: 'BUY_X_GET_Y_FIXED_AMOUNT', label: 'Buy X, get Y: amount off Y' },
] as const;
const TRIGGERS = [
  { value: 'CODE', label: 'A promo code the shopper enters' },
  { value: 'AUTO', label: 'Automatic' },
] as const;
const FULFILLMENT = [
  { value: 'SHIPPING', label: 'Shipping' },
  { value: 'PICKUP', label: 'Pickup' },
  { value: 'LOCAL_DELIVERY', label: 'Local delivery' },
] as const;
const label = (list: readonly { value: string; label: string }[], value: string) =>
  list.find((x) => x.value === value)?.label ?? value;
const STATUS: Record<string, string> = { ACTIVE: 'Active', SCHEDULED: 'Scheduled', EXPIRED: 'Expired' };

export function discountsListBody(
  site: WebsitesTable,
  discounts: DiscountT[],
  csrf: string,
  done?: string,
): Html {
  const base = `/sites/${site.id}/discounts`;
  const rows = discounts.map(
    (d) =>
      html`<tr>
        <td><a href="${base}/${d.id}">${d.name}</a></td>
        <td>${d.trigger.type === 'CODE' ? html`<code>${d.trigger.promoCode}</code>` : 'Automatic'}</td>
        <td>${label(CRITERIA, d.criteria.type)}; ${label(TEMPLATES, d.template.type)}</td>
        <td>${STATUS[d.status] ?? d.status}</td>
        <td>${d.numberOfUses}${d.isLimitedUses ? ` of ${d.maxUsesAllowed}` : ''}</td>
        <td>
          <form method="post" action="${base}/${d.id}/${d.status === 'EXPIRED' ? 'enable' : 'disable'}">
            ${csrfInput(csrf)}<button aria-label="${d.status === 'EXPIRED' ? 'Enable' : 'Disable'} ${d.name}">
              ${d.status === 'EXPIRED' ? 'Enable' : 'Disable'}
            </button>
          </form>
          <a href="${base}/${d.id}/delete" aria-label="Delete ${d.name}">Delete</a>
        </td>
      </tr>`,
  );
  return html`<p><a href="/sites/${site.id}">${site.title}</a> · <a href="${base}/new">New discount</a></p>
    ${notice(done, 'info')}
    ${
      rows.length
        ? tableBox(
            'Discounts',
            html`<table>
              <caption>
                Discounts, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Code</th>
                  <th scope="col">Type</th>
                  <th scope="col">Status</th>
                  <th scope="col">Uses</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`,
          )
        : html`<p>No discounts yet.</p>`
    }`;
}

function fieldset(legend: string, fields: Html): Html {
  return html`<fieldset>
    <legend>${legend}</legend>
    ${fields}
  </fieldset>`;
}

export function discountFormBody(
  site: WebsitesTable,
  view: { action: string; values: Values; csrf: string; error?: FormError; submit: string },
): Html {
  const s: FormState = stateOf('discount', view.values, view.error);
  const cur = site.currency;
  return html`<p><a href="/sites/${site.id}/discounts">All discounts of ${site.title}</a></p>
    <form method="post" action="${view.action}" novalidate>
      ${csrfInput(view.csrf)} ${formNotice(s)} ${textField(s, 'name', 'Name', { required: true })}
      ${fieldset(
        'How it applies',
        html`${select(s, 'trigger', 'Trigger', TRIGGERS)}
        ${textField(s, 'promoCode', 'Promo code', { hint: 'For a promo code trigger: 1 to 50 letters, digits, _ or -.' })}`,
      )}
      ${fieldset(
        'Which orders (criteria)',
        html`${select(s, 'criteriaType', 'Criteria', CRITERIA)}
        ${textField(s, 'minimumCartTotal', `Minimum cart total (${cur})`, { inputmode: 'decimal', hint: 'For a cart total criteria.' })}
        ${textField(s, 'productId', 'Product id', { hint: 'For a one product criteria.' })}
        ${textField(s, 'requiredFullPriceQuantity', 'Buy X: units at full price', { inputmode: 'numeric', hint: 'For buy X, get Y.' })}
        ${textField(s, 'criteriaProductIds', 'Buy X: product ids', { hint: 'Comma separated.' })}
        ${textField(s, 'eligibleForDiscountQuantity', 'Get Y: discounted units', { inputmode: 'numeric' })}
        ${textField(s, 'rewardProductIds', 'Get Y: product ids', { hint: 'Comma separated.' })}`,
      )}
      ${fieldset(
        'What it gives (template)',
        html`${select(s, 'templateType', 'Discount', TEMPLATES)}
        ${textField(s, 'percentage', 'Percentage off', { inputmode: 'decimal', hint: 'More than 0, at most 100.' })}
        ${textField(s, 'discountAmount', `Amount off (${cur})`, { inputmode: 'decimal' })}
        ${textField(s, 'maxApplicationsPerCart', 'Buy X, get Y: times per cart', { inputmode: 'numeric', hint: '0 or blank: no limit.' })}
        ${select(s, 'fulfillmentType', 'Free shipping applies to', FULFILLMENT)}`,
      )}
      ${fieldset(
        'When and how often',
        html`${textField(s, 'validFrom', 'Starts (UTC)', { required: true, hint: 'As 2026-08-16T08:00.' })}
        ${textField(s, 'validTo', 'Ends (UTC)', { hint: 'Blank: no end.' })}
        ${checkbox(s, 'isLimitedUses', 'Limit the number of uses')}
        ${textField(s, 'maxUsesAllowed', 'Uses allowed', { inputmode: 'numeric' })}
        ${checkbox(s, 'isOncePerCustomer', 'Once per customer')}`,
      )}
      <button>${view.submit}</button>
    </form>`;
}

export function deleteBody(site: WebsitesTable, d: DiscountT, csrf: string): Html {
  const base = `/sites/${site.id}/discounts`;
  return html`<p>
      Delete the discount “${d.name}”? Apps and shoppers will no longer find it; this cannot be undone.
    </p>
    <form method="post" action="${base}/${d.id}/delete">
      ${csrfInput(csrf)}<input type="hidden" name="confirm" value="yes" />
      <button>Yes, delete “${d.name}”</button>
    </form>
    <p><a href="${base}">No, keep it</a></p>`;
}
