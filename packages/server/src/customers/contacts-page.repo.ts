import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/database.ts';
import type { SortField } from './contacts.schemas.ts';
import { contacts, type ContactRow } from './contacts.repo.ts';

/**
 * One keyset page of contacts for the list and the query (platform-surface 2.6.3). Each sort is
 * on (column, id), matched by an index of (website_id, column, id) (migration 018); a sort by a
 * donation field is by id, as every contact has no donations in Emporium.
 */

interface SortColumn {
  expression: RawBuilder<unknown>;
  /** The type a cursor's text key is cast back to. */
  type: string;
}

const NEVER = sql`'-infinity'::timestamptz`;

const COLUMNS: Partial<Record<SortField, SortColumn>> = {
  CREATED_ON: { expression: sql`p.created_on`, type: 'timestamptz' },
  EMAIL: { expression: sql`lower(p.email)`, type: 'text' },
  ACCEPTS_MARKETING_JOINED_ON: {
    expression: sql`coalesce(p.marketing_joined_on, ${NEVER})`,
    type: 'timestamptz',
  },
  FIRST_NAME: { expression: sql`p.first_name`, type: 'text' },
  LAST_NAME: { expression: sql`p.last_name`, type: 'text' },
  ORDER_COUNT: { expression: sql`p.order_count`, type: 'integer' },
  LAST_ORDER_ON: { expression: sql`coalesce(p.last_order_on, ${NEVER})`, type: 'timestamptz' },
  ORDER_AMOUNT: { expression: sql`p.total_order_minor`, type: 'bigint' },
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

/** One page in the order asked, ties by id in the same direction. */
export function selectContactPage(
  db: Db,
  websiteId: string,
  filter: ContactFilter,
  spec: PageSpec,
): Promise<ContactPageRow[]> {
  const direction = spec.descending ? 'desc' : 'asc';
  const column = COLUMNS[spec.sortField];
  const key = column ? sql<string>`${column.expression}::text` : sql<string>`p.id`;
  let page = contacts(db, websiteId).select(key.as('sort_key'));
  for (const condition of conditions(filter)) page = page.where(condition);
  if (column) page = page.orderBy(column.expression, direction);
  page = page.orderBy('p.id', direction).limit(spec.limit);
  if (spec.after) {
    const op = sql.raw(spec.descending ? '<' : '>');
    const { key: last, id } = spec.after;
    page = page.where(
      column
        ? sql<SqlBool>`(${column.expression}, p.id) ${op} (CAST(${last} AS ${sql.raw(column.type)}), ${id})`
        : sql<SqlBool>`p.id ${op} ${id}`,
    );
  }
  return page.execute() as Promise<ContactPageRow[]>;
}
