import { DiscountBody, type DiscountBodyT, type DiscountT } from '../../discounts/discounts.schemas.ts';
import type { FormError } from '../products/product-form.ts';
import { checkSchema, nameList, type Values } from '../products/product-form.ts';

/**
 * The owner's discount form turned into the API's DiscountBody (platform-surface 2.7.1): the
 * route's schema checks it first, then the same discounts service applies every other rule, and
 * the field its message names is placed beside the form's input.
 */

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/** A number field: blank is absent; text that is no number stays text for the schema to refuse. */
const num = (text: string | undefined) => {
  const t = (text ?? '').trim();
  return t === '' ? undefined : /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
};
/** A datetime-local input, read as UTC (the form says so); other text is left for the service. */
const utc = (text: string | undefined) => {
  const t = (text ?? '').trim();
  return DATE_TIME.test(t) ? `${t.length === 16 ? `${t}:00` : t}Z` : t;
};
const money = (currency: string, text: string | undefined) =>
  (text ?? '').trim() === '' ? undefined : { currency, value: (text ?? '').trim() };
const ids = (text: string | undefined) => (nameList(text ?? '').length ? nameList(text ?? '') : undefined);

export function discountInput(v: Values, currency: string): DiscountBodyT {
  const template = v.templateType ?? '';
  const percentKey = template === 'BUY_X_GET_Y_PERCENTAGE' ? 'discountPercentage' : 'percentage';
  const limited = v.isLimitedUses === 'on';
  const body = {
    name: (v.name ?? '').trim(),
    criteria: {
      type: v.criteriaType,
      ...(v.criteriaType === 'CART_TOTAL' && { minimumCartTotal: money(currency, v.minimumCartTotal) }),
      ...(v.criteriaType === 'PRODUCT' && { productId: (v.productId ?? '').trim() || undefined }),
      ...(v.criteriaType === 'BUY_X_GET_Y' && {
        requiredFullPriceQuantity: num(v.requiredFullPriceQuantity),
        eligibleForDiscountQuantity: num(v.eligibleForDiscountQuantity),
        criteriaProductIds: ids(v.criteriaProductIds),
        rewardProductIds: ids(v.rewardProductIds),
      }),
    },
    template: {
      type: template,
      ...(/FIXED_AMOUNT$/.test(template) && { discountAmount: money(currency, v.discountAmount) }),
      ...(/PERCENTAGE$/.test(template) && { [percentKey]: num(v.percentage) }),
      ...(/^BUY_X_GET_Y_/.test(template) && { maxApplicationsPerCart: num(v.maxApplicationsPerCart) ?? 0 }),
      ...(template === 'FREE_SHIPPING' && { appliesToFulfillmentOptionType: v.fulfillmentType }),
    },
    trigger:
      v.trigger === 'CODE' ? { type: 'CODE', promoCode: (v.promoCode ?? '').trim() } : { type: v.trigger },
    validFrom: utc(v.validFrom),
    validTo: (v.validTo ?? '').trim() ? utc(v.validTo) : null,
    isLimitedUses: limited,
    maxUsesAllowed: limited ? (num(v.maxUsesAllowed) ?? null) : null,
    isOncePerCustomer: v.isOncePerCustomer === 'on',
  };
  // Absent optional fields are left out, as a client's JSON would.
  const clean = JSON.parse(JSON.stringify(body)) as unknown;
  checkSchema(DiscountBody, clean);
  return clean as DiscountBodyT;
}

const local = (iso: string | null) => (iso ? iso.slice(0, 16) : '');

/** A discount's fields as its edit form shows them. */
export function discountValues(d: DiscountT): Values {
  const c = d.criteria;
  const t = d.template;
  return {
    name: d.name,
    trigger: d.trigger.type,
    promoCode: d.trigger.type === 'CODE' ? d.trigger.promoCode : '',
    criteriaType: c.type,
    minimumCartTotal: c.type === 'CART_TOTAL' ? String(c.minimumCartTotal.value) : '',
    productId: c.type === 'PRODUCT' ? c.productId : '',
    requiredFullPriceQuantity: c.type === 'BUY_X_GET_Y' ? String(c.requiredFullPriceQuantity) : '',
    eligibleForDiscountQuantity: c.type === 'BUY_X_GET_Y' ? String(c.eligibleForDiscountQuantity) : '',
    criteriaProductIds: c.type === 'BUY_X_GET_Y' ? c.criteriaProductIds.join(', ') : '',
    rewardProductIds: c.type === 'BUY_X_GET_Y' ? c.rewardProductIds.join(', ') : '',
    templateType: t.type,
    discountAmount: 'discountAmount' in t ? String(t.discountAmount.value) : '',
    percentage:
      'percentage' in t
        ? String(t.percentage)
        : 'discountPercentage' in t
          ? String(t.discountPercentage)
          : '',
    maxApplicationsPerCart: 'maxApplicationsPerCart' in t ? String(t.maxApplicationsPerCart) : '',
    fulfillmentType: 'appliesToFulfillmentOptionType' in t ? t.appliesToFulfillmentOptionType : 'SHIPPING',
    validFrom: local(d.validFrom),
    validTo: local(d.validTo),
    isLimitedUses: d.isLimitedUses ? 'on' : '',
    maxUsesAllowed: d.maxUsesAllowed === null ? '' : String(d.maxUsesAllowed),
    isOncePerCustomer: d.isOncePerCustomer ? 'on' : '',
  };
}

/** The API field a message names (`template.discountPercentage`), as the form's input. */
const FIELDS: [RegExp, string][] = [
  [/^criteria\.type/, 'criteriaType'],
  [/^template\.type/, 'templateType'],
  [/^trigger\.type/, 'trigger'],
  [/^template\.(discountPercentage|percentage)/, 'percentage'],
  [/^template\.(appliesToFulfillmentOptionType|selectedShippingOption)/, 'fulfillmentType'],
  [/^criteria$/, 'criteriaProductIds'],
  [/^(criteria|template|trigger)\.(\w+)/, '$2'],
  [/^(name|validFrom|validTo|isLimitedUses|maxUsesAllowed|isOncePerCustomer)\b/, '$1'],
];

/** The refusal as a form error: the field its message names (body. stripped), and its text. */
export function discountError(error: Error, values: Values): FormError {
  const match = /^(?:body\.)?([\w.[\]-]+): (.*)$/s.exec(error.message);
  const path = match?.[1] ?? '';
  const rule = FIELDS.find(([pattern]) => pattern.test(path));
  const field = rule ? path.replace(/\[\d+\]/g, '').replace(new RegExp(`${rule[0].source}.*$`), rule[1]) : '';
  return { form: 'discount', field, message: field ? match![2]! : error.message, values };
}

/**
 * What the form does not show is kept from the discount being edited, as the API's PUT replaces
 * the whole discount (platform-surface 2.7.6): its subscription and payment plan options, and the
 * one shipping option a free shipping discount was limited to while its fulfillment type stays.
 */
export function keepUnshown(input: DiscountBodyT, before: DiscountT | undefined): DiscountBodyT {
  if (!before) return input;
  const kept: DiscountBodyT = {
    ...input,
    subscriptionOptions: before.subscriptionOptions,
    paymentPlanOptions: before.paymentPlanOptions,
  };
  const was = before.template;
  const now = input.template;
  if (
    was.type === 'FREE_SHIPPING' &&
    now.type === 'FREE_SHIPPING' &&
    was.selectedShippingOption &&
    (now.appliesToFulfillmentOptionType ?? 'SHIPPING') === was.appliesToFulfillmentOptionType
  ) {
    kept.template = { ...now, selectedShippingOption: was.selectedShippingOption };
  }
  return kept;
}
