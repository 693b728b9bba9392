import { sql, type Expression, type SqlBool } from 'kysely';
import { uniqueViolation, type Db } from '../db/database.ts';
import type { DiscountsTable } from '../db/schema.ts';
import { Conflict } from '../shared/errors.ts';
import type {
  Criteria,
  CriteriaType,
  Template,
  TemplateType,
  TriggerType,
} from '../shared/discount-model.ts';

/** SQL of discounts (platform-surface 2.7). */

export type DiscountRow = Omit<DiscountsTable, 'number_of_uses' | 'criteria' | 'template'> & {
  number_of_uses: number;
  criteria: Criteria;
  template: Template;
  /** The website's currency, for the money inside criteria and template. */
  currency: string;
};

export type NewDiscount = Omit<
  DiscountsTable,
  'number_of_uses' | 'last_redeemed_at' | 'criteria' | 'template'
> & {
  criteria: object;
  template: object;
};

const PROMO_CODE_TAKEN = (code: string | null) =>
  new Conflict(
    `trigger.promoCode: another discount of this website has the code "${code}"`,
    'PROMO_CODE_CONFLICT',
  );

/**
 * The website's currency, its row locked against other discount writes (not against orders or
 * products: NO KEY UPDATE lets foreign keys through), so counting its discounts and adding one
 * cannot race past a limit.
 */
export async function lockWebsite(db: Db, websiteId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('websites')
    .select('currency')
    .where('id', '=', websiteId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row?.currency;
}

/** How many discounts the website has, and how many of them are AUTO, leaving out `except`. */
export async function countDiscounts(db: Db, websiteId: string, except: string | null) {
  let query = db
    .selectFrom('discounts')
    .select([
      sql<number>`count(*)::int`.as('all'),
      sql<number>`(count(*) FILTER (WHERE trigger_type = 'AUTO'))::int`.as('auto'),
    ])
    .where('website_id', '=', websiteId);
  if (except !== null) query = query.where('id', '<>', except);
  return query.executeTakeFirstOrThrow();
}

/** The names of these products of the website; ids of no product of it are missing from the map. */
export async function productNames(db: Db, websiteId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('products')
    .select(['id', 'name'])
    .where('website_id', '=', websiteId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

function json(row: NewDiscount) {
  return { ...row, criteria: JSON.stringify(row.criteria), template: JSON.stringify(row.template) };
}

export async function insertDiscount(db: Db, row: NewDiscount): Promise<void> {
  try {
    await db.insertInto('discounts').values(json(row)).execute();
  } catch (error) {
    if (uniqueViolation(error) === 'discounts_promo_code_key') throw PROMO_CODE_TAKEN(row.promo_code);
    throw error;
  }
}

/** Replaces the discount's fields but its id, website, uses and creation time; false when it is not the website's. */
export async function replaceDiscount(db: Db, row: NewDiscount): Promise<boolean> {
  const { id, website_id, created_on: _created, ...changes } = json(row);
  try {
    const result = await db
      .updateTable('discounts')
      .set(changes)
      .where('id', '=', id)
      .where('website_id', '=', website_id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  } catch (error) {
    if (uniqueViolation(error) === 'discounts_promo_code_key') throw PROMO_CODE_TAKEN(row.promo_code);
    throw error;
  }
}

export async function deleteDiscount(db: Db, websiteId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('discounts')
    .where('id', '=', id)
    .where('website_id', '=', websiteId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

function discounts(db: Db, websiteId: string) {
  return db
    .selectFrom('discounts as d')
    .innerJoin('websites as w', 'w.id', 'd.website_id')
    .selectAll('d')
    .select('w.currency')
    .where('d.website_id', '=', websiteId);
}

export async function selectDiscount(
  db: Db,
  websiteId: string,
  id: string,
): Promise<DiscountRow | undefined> {
  return (await discounts(db, websiteId).where('d.id', '=', id).executeTakeFirst()) as
    DiscountRow | undefined;
}

/** The website's discount with this promo code, whatever its case or status. */
export async function selectDiscountByCode(
  db: Db,
  websiteId: string,
  promoCode: string,
): Promise<DiscountRow | undefined> {
  return (await discounts(db, websiteId)
    .where(sql<SqlBool>`lower(d.promo_code) = lower(${promoCode})`)
    .executeTakeFirst()) as DiscountRow | undefined;
}

export type Status = 'ACTIVE' | 'SCHEDULED' | 'EXPIRED';

/** The status rule of discount-document.ts `statusOf`, in SQL. */
function expired(now: Date): Expression<SqlBool> {
  return sql<SqlBool>`((d.valid_to IS NOT NULL AND d.valid_to <= ${now})
    OR (d.is_limited_uses AND d.number_of_uses >= d.max_uses_allowed))`;
}

export interface DiscountFilter {
  sortBy: 'CREATED_ON' | 'PROMO_CODE' | 'USES_COUNT';
  descending: boolean;
  search?: string;
  status?: Status;
  criteria?: CriteriaType[];
  template?: TemplateType[];
  trigger?: TriggerType[];
  limitedUseOnly: boolean;
  now: Date;
}

const SORT = {
  CREATED_ON: sql`d.created_on`,
  // Case-insensitive; AUTO discounts (no code) after every code ascending, before descending.
  PROMO_CODE: sql`lower(d.promo_code)`,
  USES_COUNT: sql`d.number_of_uses`,
};

/** One offset page, ties in the sort broken by id in the same direction. */
export async function selectDiscountPage(
  db: Db,
  websiteId: string,
  filter: DiscountFilter,
  offset: number,
  limit: number,
): Promise<DiscountRow[]> {
  const direction = filter.descending ? 'desc' : 'asc';
  let page = discounts(db, websiteId)
    .orderBy(SORT[filter.sortBy], direction)
    .orderBy('d.id', direction)
    .offset(offset)
    .limit(limit);
  const { now } = filter;
  if (filter.status === 'EXPIRED') page = page.where(expired(now));
  if (filter.status === 'SCHEDULED')
    page = page.where(sql<SqlBool>`NOT ${expired(now)} AND d.valid_from > ${now}`);
  if (filter.status === 'ACTIVE')
    page = page.where(sql<SqlBool>`NOT ${expired(now)} AND d.valid_from <= ${now}`);
  if (filter.criteria) page = page.where('d.criteria_type', 'in', filter.criteria);
  if (filter.template) page = page.where('d.template_type', 'in', filter.template);
  if (filter.trigger) page = page.where('d.trigger_type', 'in', filter.trigger);
  if (filter.limitedUseOnly) page = page.where('d.is_limited_uses', '=', true);
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    page = page.where(sql<SqlBool>`(d.name ILIKE ${pattern} OR d.promo_code ILIKE ${pattern})`);
  }
  return (await page.execute()) as DiscountRow[];
}

/** The discounts live at `now` that a cart can use: every AUTO one, and the one with this code. */
export async function selectLiveDiscounts(
  db: Db,
  websiteId: string,
  now: Date,
  promoCode: string | null,
): Promise<DiscountRow[]> {
  let query = discounts(db, websiteId)
    .where(sql<SqlBool>`NOT ${expired(now)} AND d.valid_from <= ${now}`)
    .orderBy('d.created_on')
    .orderBy('d.id');
  query = promoCode
    ? query.where(sql<SqlBool>`(d.trigger_type = 'AUTO' OR lower(d.promo_code) = lower(${promoCode}))`)
    : query.where('d.trigger_type', '=', 'AUTO');
  return (await query.execute()) as DiscountRow[];
}
