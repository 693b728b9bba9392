import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SortField } from './contacts.schemas.ts';
import { contacts, type ContactRow } from './contacts.repo.ts';

/**
 * One keyset page of contacts for the list and the query (platform-surface 2.6.3). Each sort is
 * on (column, id), matched by an index of (website_id, column, id) (migration 018); a sort by a
 * donation field is by id, as every contact has no donations in Emporium. A page whose filter
 * has a selective range on another field is sorted after filtering instead (selectiveRange):
 * the same rows in the same order, read through the range's index.
 */

interface SortColumn {
  expression: RawBuilder<unknown>;
  /**
   * The same value in the same order, written so that no index matches it: sorting on it makes
   * the page a sort of the filtered rows rather than a walk of the sort index (sortedAfter).
   */
  unindexed: RawBuilder<unknown>;
  /** The type a cursor's text key is cast back to. */
  type: string;
}

const NEVER = sql`'-infinity'::timestamptz`;

const ZERO = sql`interval '0 s'`;

const COLUMNS: Partial<Record<SortField, SortColumn>> = {
  CREATED_ON: {
    expression: sql`p.created_on`,
    unindexed: sql`(p.created_on + ${ZERO})`,
    type: 'timestamptz',
  },
  EMAIL: { expression: sql`lower(p.email)`, unindexed: sql`(lower(p.email) || '')`, type: 'text' },
  ACCEPTS_MARKETING_JOINED_ON: {
    expression: sql`coalesce(p.marketing_joined_on, ${NEVER})`,
    unindexed: sql`(coalesce(p.marketing_joined_on, ${NEVER}) + ${ZERO})`,
    type: 'timestamptz',
  },
  FIRST_NAME: { expression: sql`p.first_name`, unindexed: sql`(p.first_name || '')`, type: 'text' },
  LAST_NAME: { expression: sql`p.last_name`, unindexed: sql`(p.last_name || '')`, type: 'text' },
  ORDER_COUNT: { expression: sql`p.order_count`, unindexed: sql`(p.order_count + 0)`, type: 'integer' },
  LAST_ORDER_ON: {
    expression: sql`coalesce(p.last_order_on, ${NEVER})`,
    unindexed: sql`(coalesce(p.last_order_on, ${NEVER}) + ${ZERO})`,
    type: 'timestamptz',
  },
  ORDER_AMOUNT: {
    expression: sql`p.total_order_minor`,
    unindexed: sql`(p.total_order_minor + 0)`,
    type: 'bigint',
  },
};

export interface Range<T> {
  min?: T;
  max?: T;
}

/** A time window: after (exclusive) to before (inclusive). */
export interface Window {
  after?: Date;
  before?: Date;
}

export interface ContactFilter {
  /** Words each found in the names or the e-mail, case-insensitively. */
  words?: string[];
  acceptsMarketing?: boolean;
  joinedOn?: Window;
  firstOrderOn?: Window;
  lastOrderOn?: Window;
  orderCount?: Range<number>;
  orderAmountMinor?: Range<number>;
  /** A donation filter no contact can meet (every contact has none): the page is empty. */
  nothing?: boolean;
}

export interface PageSpec {
  sortField: SortField;
  descending: boolean;
  /** The last position seen: the sort column's value as text and the id. */
  after?: { key: string; id: string };
  limit: number;
}

export type ContactPageRow = ContactRow & { sort_key: string };

/**
 * A window on a time, written on the sort index's expression (`coalesce(column, '-infinity')`)
 * where there is one, so that index answers a selective window too; a NULL time is never in it.
 */
function where(column: RawBuilder<unknown>, window: Window | undefined): RawBuilder<SqlBool>[] {
  if (!window) return [];
  return [
    window.after ? sql<SqlBool>`${column} > ${window.after}` : sql<SqlBool>`${column} > ${NEVER}`,
    ...(window.before ? [sql<SqlBool>`${column} <= ${window.before}`] : []),
  ];
}

function between(column: RawBuilder<unknown>, range: Range<number> | undefined): RawBuilder<SqlBool>[] {
  const out: RawBuilder<SqlBool>[] = [];
  if (range?.min !== undefined) out.push(sql<SqlBool>`${column} >= ${range.min}`);
  if (range?.max !== undefined) out.push(sql<SqlBool>`${column} <= ${range.max}`);
  return out;
}

function conditions(filter: ContactFilter): RawBuilder<SqlBool>[] {
  const out: RawBuilder<SqlBool>[] = [];
  if (filter.nothing) out.push(sql<SqlBool>`false`);
  for (const word of filter.words ?? []) {
    const pattern = `%${word.replace(/[\\%_]/g, '\\$&')}%`;
    // The expression of profiles_search_idx, so the trigram index answers it.
    out.push(
      sql<SqlBool>`lower(p.first_name || ' ' || p.last_name || ' ' || p.email) LIKE lower(${pattern})`,
    );
  }
  if (filter.acceptsMarketing !== undefined) {
    out.push(sql<SqlBool>`p.accepts_marketing = ${filter.acceptsMarketing}`);
  }
  out.push(...where(COLUMNS.ACCEPTS_MARKETING_JOINED_ON!.expression, filter.joinedOn));
  out.push(...where(sql`p.first_order_on`, filter.firstOrderOn));
  out.push(...where(COLUMNS.LAST_ORDER_ON!.expression, filter.lastOrderOn));
  out.push(...between(sql`p.order_count`, filter.orderCount));
  out.push(...between(sql`p.total_order_minor`, filter.orderAmountMinor));
  return out;
}

/**
 * Each range filter that has an index of its own (migration 018) and is not on the sort column,
 * by the field it is on.
 */
function ranges(filter: ContactFilter, sortField: SortField): RawBuilder<SqlBool>[][] {
  const all: [string, RawBuilder<SqlBool>[]][] = [
    ['ACCEPTS_MARKETING_JOINED_ON', where(COLUMNS.ACCEPTS_MARKETING_JOINED_ON!.expression, filter.joinedOn)],
    ['FIRST_ORDER_ON', where(sql`p.first_order_on`, filter.firstOrderOn)],
    ['LAST_ORDER_ON', where(COLUMNS.LAST_ORDER_ON!.expression, filter.lastOrderOn)],
    ['ORDER_COUNT', between(sql`p.order_count`, filter.orderCount)],
    ['ORDER_AMOUNT', between(sql`p.total_order_minor`, filter.orderAmountMinor)],
  ];
  return all.filter(([field, conditions]) => field !== sortField && conditions.length).map(([, c]) => c);
}

/**
 * Whether one of the ranges matches fewer than `selective` contacts, counted (up to that) on its
 * own index. Such a page is sorted after filtering: walking the sort index and filtering reads
 * about limit / (share matching) rows, all of them if the matches sit at the far end of the sort
 * order (issue 18: a lastOrderOn window sorted by ORDER_AMOUNT read 157 ms at 300k), while the
 * range's index reads at most `selective` rows. A range matching more finds the page's rows
 * early in the sort index, so the index-driven page stays.
 */
async function selectiveRange(
  db: Db,
  websiteId: string,
  candidates: RawBuilder<SqlBool>[][],
  selective: number,
): Promise<boolean> {
  if (!candidates.length) return false;
  const counts = candidates.map(
    (conditions) =>
      sql<number>`(SELECT count(*) FROM (SELECT 1 FROM profiles p WHERE p.website_id = ${websiteId}
        AND ${sql.join(conditions, sql` AND `)} LIMIT ${selective}) AS r)`,
  );
  const { rows } = await sql<{ fewest: string }>`SELECT least(${sql.join(counts)}) AS fewest`.execute(db);
  return Number(rows[0]?.fewest ?? selective) < selective;
}

/** Contacts a range may match for its page to be sorted after filtering (selectiveRange). */
export const SELECTIVE_RANGE = 5_000;

/** One page in the order asked, ties by id in the same direction. */
export async function selectContactPage(
  db: Db,
  websiteId: string,
  filter: ContactFilter,
  spec: PageSpec,
  selective = SELECTIVE_RANGE,
): Promise<ContactPageRow[]> {
  const direction = spec.descending ? 'desc' : 'asc';
  const column = COLUMNS[spec.sortField];
  const sortedAfter =
    column !== undefined &&
    !filter.nothing &&
    (await selectiveRange(db, websiteId, ranges(filter, spec.sortField), selective));
  const order = column && (sortedAfter ? column.unindexed : column.expression);
  const key = column ? sql<string>`${column.expression}::text` : sql<string>`p.id`;
  const narrowed: RawBuilder<SqlBool>[] = conditions(filter);
  if (spec.after) {
    const op = sql.raw(spec.descending ? '<' : '>');
    const { key: last, id } = spec.after;
    narrowed.push(
      order && column
        ? sql<SqlBool>`(${order}, p.id) ${op} (CAST(${last} AS ${sql.raw(column.type)}), ${id})`
        : sql<SqlBool>`p.id ${op} ${id}`,
    );
  }
  let page = contacts(db, websiteId).select(key.as('sort_key'));
  if (sortedAfter) {
    // The page's ids first, sorted from the filtered rows alone: the address book join and the
    // formatting then run for the page's contacts only, not for every match.
    let ids = db.selectFrom('profiles as p').select('p.id').where('p.website_id', '=', websiteId);
    for (const condition of narrowed) ids = ids.where(condition);
    ids = ids.orderBy(order!, direction).orderBy('p.id', direction).limit(spec.limit);
    page = page.where('p.id', 'in', ids);
  } else {
    for (const condition of narrowed) page = page.where(condition);
  }
  if (order) page = page.orderBy(order, direction);
  page = page.orderBy('p.id', direction).limit(spec.limit);
  return (await page.execute()) as ContactPageRow[];
}
