import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { Conflict, NotFound, ValidationError } from '../shared/errors.ts';
import { OBJECT_ID, type Ids } from '../shared/ids.ts';
import { parseDiscount, productIdsOf, type DiscountDraft } from './discount-input.ts';
import {
  CRITERIA_TYPES,
  TEMPLATE_TYPES,
  TRIGGER_TYPES,
  type DiscountRule,
} from '../shared/discount-model.ts';
import { toDiscount, toRule } from './discount-document.ts';
import * as repo from './discounts.repo.ts';
import { LIMITS, type DiscountBodyT, type DiscountT, type ListDiscountsQueryT } from './discounts.schemas.ts';

/** Discounts v1 (platform-surface 2.7): the website's discounts, and the live ones a cart may use. */

type Deps = { db: Db; clock: Clock };

const notFound = (id: string) => new NotFound(`discount not found for this website: ${id}`);

/** A comma list (or repeated parameter) of known names, each once; undefined when absent. */
function names<T extends string>(value: string | string[] | undefined, known: readonly T[], field: string) {
  if (value === undefined) return undefined;
  const items = [value]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (items.length === 0) return undefined;
  const unknown = items.find((v) => !known.includes(v as T));
  if (unknown !== undefined)
    throw new ValidationError(`${field}: unknown value "${unknown}"; use ${known.join(', ')}`);
  return [...new Set(items)] as T[];
}

function integer(
  value: string | undefined,
  field: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined || value === '') return fallback;
  const n = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new ValidationError(`${field}: a whole number from ${min} to ${max}`);
  return n;
}

/** `GET /v1/commerce/discounts`: one offset page, with whether pages come before and after it. */
export async function listDiscounts(deps: Deps, websiteId: string, query: ListDiscountsQueryT) {
  const offset = integer(query.offset, 'offset', 0, 2_147_483_647, 0);
  const limit = integer(query.limit, 'limit', 1, LIMITS.listLimit, LIMITS.defaultLimit);
  const now = deps.clock.now(websiteId);
  const filter: repo.DiscountFilter = {
    sortBy: query.sortBy ?? 'CREATED_ON',
    descending: query.sortDirection !== 'ASCENDING',
    search: query.search?.trim() || undefined,
    status: query.status === 'ALL' ? undefined : query.status,
    criteria: names(query.criteria, CRITERIA_TYPES, 'criteria'),
    template: names(query.template, TEMPLATE_TYPES, 'template'),
    trigger: names(query.trigger, TRIGGER_TYPES, 'trigger'),
    limitedUseOnly: query.limitedUseOnly === 'true',
    now,
  };
  const rows = await repo.selectDiscountPage(deps.db, websiteId, filter, offset, limit + 1);
  return {
    discounts: rows.slice(0, limit).map((row) => toDiscount(row, now)),
    hasNextPage: rows.length > limit,
    hasPreviousPage: offset > 0,
  };
}

export async function getDiscount(deps: Deps, websiteId: string, id: string): Promise<DiscountT> {
  const row = OBJECT_ID.test(id) ? await repo.selectDiscount(deps.db, websiteId, id) : undefined;
  if (!row) throw notFound(id);
  return toDiscount(row, deps.clock.now(websiteId));
}

/**
 * Product ids must be the website's; a PRODUCT criterion takes the product's name now (a snapshot,
 * platform-surface 2.7.2). On a replace, the product the discount already names is kept as it
 * was, even if it has since been deleted, so the rest of the discount can still be edited.
 */
async function resolveProducts(
  trx: Db,
  websiteId: string,
  draft: DiscountDraft,
  before: repo.DiscountRow | undefined,
) {
  const kept = before ? productIdsOf(before.criteria) : [];
  const wanted = productIdsOf(draft.criteria).filter((id) => !kept.includes(id));
  const found = await repo.productNames(
    trx,
    websiteId,
    wanted.filter((id) => OBJECT_ID.test(id)),
  );
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) {
    const field = draft.criteria.type === 'PRODUCT' ? 'criteria.productId' : 'criteria';
    throw new ValidationError(`${field}: no product ${missing} on this website`);
  }
  const c = draft.criteria;
  if (c.type === 'PRODUCT') {
    const previous =
      before?.criteria.type === 'PRODUCT' && before.criteria.productId === c.productId
        ? before.criteria
        : null;
    c.productName = previous ? previous.productName : found.get(c.productId)!;
  }
}

/** 409 ENTITY_LIMIT_REACHED past Emporium's limits (the platform states no number). */
async function checkLimits(trx: Db, websiteId: string, draft: DiscountDraft, except: string | null) {
  const counts = await repo.countDiscounts(trx, websiteId, except);
  if (counts.all >= LIMITS.discountsPerWebsite) {
    throw new Conflict(
      `a website has at most ${LIMITS.discountsPerWebsite} discounts`,
      'ENTITY_LIMIT_REACHED',
    );
  }
  if (draft.trigger.type === 'AUTO' && counts.auto >= LIMITS.autoDiscountsPerWebsite) {
    throw new Conflict(
      `a website has at most ${LIMITS.autoDiscountsPerWebsite} automatic (AUTO) discounts`,
      'ENTITY_LIMIT_REACHED',
    );
  }
}

function newRow(websiteId: string, id: string, draft: DiscountDraft, now: Date): repo.NewDiscount {
  return {
    id,
    website_id: websiteId,
    name: draft.name,
    criteria_type: draft.criteria.type,
    template_type: draft.template.type,
    trigger_type: draft.trigger.type,
    promo_code: draft.trigger.type === 'CODE' ? draft.trigger.promoCode : null,
    criteria: draft.criteria,
    template: draft.template,
    valid_from: draft.validFrom,
    valid_to: draft.validTo,
    is_limited_uses: draft.isLimitedUses,
    max_uses_allowed: draft.maxUsesAllowed,
    is_once_per_customer: draft.isOncePerCustomer,
    subscription_options: draft.subscriptionOptions,
    payment_plan_options: draft.paymentPlanOptions,
    created_on: now,
    modified_on: now,
  };
}

/**
 * Create (id null) or replace a discount, all checks in one transaction under the website's lock,
 * so limits hold under concurrent writes; a refused write stores nothing.
 */
async function write(deps: Deps & { ids: Ids }, websiteId: string, id: string | null, body: DiscountBodyT) {
  return deps.db.transaction().execute(async (trx) => {
    const currency = await repo.lockWebsite(trx, websiteId);
    if (currency === undefined) throw new NotFound(`website not found: ${websiteId}`);
    const before =
      id === null
        ? undefined
        : OBJECT_ID.test(id)
          ? await repo.selectDiscount(trx, websiteId, id)
          : undefined;
    if (id !== null && !before) throw notFound(id);
    const draft = parseDiscount(body, currency, websiteId);
    await resolveProducts(trx, websiteId, draft, before);
    await checkLimits(trx, websiteId, draft, id);
    const now = deps.clock.now(websiteId);
    const row = newRow(websiteId, id ?? deps.ids.objectId(), draft, now);
    if (before) await repo.replaceDiscount(trx, row);
    else await repo.insertDiscount(trx, row);
    const saved = await repo.selectDiscount(trx, websiteId, row.id);
    return toDiscount(saved!, now);
  });
}

export const createDiscount = (deps: Deps & { ids: Ids }, websiteId: string, body: DiscountBodyT) =>
  write(deps, websiteId, null, body);

/** `PUT`: the whole discount replaced; id, uses and creation time stay, read-only fields sent are ignored. */
export const replaceDiscount = (
  deps: Deps & { ids: Ids },
  websiteId: string,
  id: string,
  body: DiscountBodyT,
) => write(deps, websiteId, id, body);

export async function deleteDiscount(deps: Deps, websiteId: string, id: string): Promise<void> {
  const deleted = OBJECT_ID.test(id) && (await repo.deleteDiscount(deps.db, websiteId, id));
  if (!deleted) throw notFound(id);
}

/**
 * The discounts a cart of this website may use now (for discount-pricing.ts `priceCart`): every
 * ACTIVE AUTO discount, and the ACTIVE CODE discount whose code (any case) the shopper entered.
 * `onceOnly` marks those that are once per customer, for the caller to check against its buyer.
 */
export async function liveDiscounts(
  deps: Deps,
  websiteId: string,
  promoCode: string | null,
): Promise<{ rule: DiscountRule; oncePerCustomer: boolean }[]> {
  const rows = await repo.selectLiveDiscounts(
    deps.db,
    websiteId,
    deps.clock.now(websiteId),
    promoCode?.trim() || null,
  );
  return rows.map((row) => ({ rule: toRule(row), oncePerCustomer: row.is_once_per_customer }));
}
