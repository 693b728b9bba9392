import { exponent } from '../shared/money.ts';
import type { Db } from '../db/database.ts';
import { ValidationError } from '../shared/errors.ts';
import { parseDateTime } from '../shared/iso-time.ts';
import { findWebsite } from '../sites/websites.repo.ts';
import { pagination, type CursorCodec, type Pagination } from '../pagination/cursor.ts';
import * as pages from './contacts-page.repo.ts';
import { listPageSize } from './page-size.ts';
import { toContact } from './contacts.mapper.ts';
import {
  DEFAULT_PAGE_SIZE,
  SORT_FIELDS,
  type ContactQueryInput,
  type ContactT,
  type PageQueryT,
  type SortField,
} from './contacts.schemas.ts';

/**
 * `GET /v1/contacts` and `POST /v1/contacts/query` (platform-surface 2.6.2, 2.6.3): one keyset
 * page machinery. A query is first put in a normal form (plain JSON), which its cursors carry
 * and a request sent with a cursor is compared with. The list is the query without filters.
 */

type Pair<T> = [T | null, T | null];

/** A query in normal form: only what narrows or orders the page, ranges as [low, high]. */
interface NormalQuery {
  s: SortField;
  d: boolean;
  words?: string[];
  am?: boolean;
  jo?: Pair<string>;
  fo?: Pair<string>;
  lo?: Pair<string>;
  oc?: Pair<number>;
  oa?: Pair<number>;
  /** A donation filter: no contact has donations, nothing matches. */
  x?: true;
}

interface ContactCursor {
  w: string;
  q: NormalQuery;
  n: number;
  k: string;
  i: string;
}

const LIST = 'contacts';
const MAX_WORDS = 10;
const SORT_NAMES = new Map(SORT_FIELDS.map((f) => [f.replace(/_/g, '').toLowerCase(), f]));

/** `CREATED_ON`, `created_on`, `createdOn` (SPEC-R's example): one field (platform-surface 2.6.3). */
function sortFieldOf(value: string | undefined): SortField {
  if (value === undefined || value === '') return 'CREATED_ON';
  const field = SORT_NAMES.get(value.replace(/_/g, '').toLowerCase());
  if (!field) throw new ValidationError(`sortField: must be one of ${SORT_FIELDS.join(', ')}`);
  return field;
}

function descendingOf(value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const upper = value.toUpperCase();
  if (upper !== 'ASCENDING' && upper !== 'DESCENDING') {
    throw new ValidationError('sortDirection: must be ASCENDING or DESCENDING');
  }
  return upper === 'DESCENDING';
}

function dates(filter: { after?: string; before?: string } | undefined, field: string) {
  if (!filter || (filter.after === undefined && filter.before === undefined)) return undefined;
  const after = filter.after === undefined ? null : parseDateTime(filter.after, `${field}.after`);
  const before = filter.before === undefined ? null : parseDateTime(filter.before, `${field}.before`);
  if (after && before && before <= after)
    throw new ValidationError(`${field}.before: must be later than after`);
  return [after?.toISOString() ?? null, before?.toISOString() ?? null] as Pair<string>;
}

function integers(filter: { min?: number; max?: number } | undefined, field: string) {
  if (!filter || (filter.min === undefined && filter.max === undefined)) return undefined;
  if (filter.min !== undefined && filter.max !== undefined && filter.min > filter.max) {
    throw new ValidationError(`${field}.max: must not be less than min`);
  }
  return [filter.min ?? null, filter.max ?? null] as Pair<number>;
}

/** The body's narrowing and order in normal form; every bad value a 400 naming its field. */
function normalize(body: ContactQueryInput): NormalQuery {
  const q: NormalQuery = { s: sortFieldOf(body.sortField), d: descendingOf(body.sortDirection) };
  const words = (body.searchString ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length > MAX_WORDS) throw new ValidationError(`searchString: at most ${MAX_WORDS} words`);
  if (words.length) q.words = words;
  const marketing = body.acceptsMarketingWithDate;
  if (marketing?.acceptsMarketing !== undefined) q.am = marketing.acceptsMarketing;
  const set = <K extends keyof NormalQuery>(key: K, value: NormalQuery[K] | undefined) => {
    if (value !== undefined) q[key] = value;
  };
  set('jo', dates(marketing?.joinedOn, 'acceptsMarketingWithDate.joinedOn'));
  set('fo', dates(body.firstOrderOn, 'firstOrderOn'));
  set('lo', dates(body.lastOrderOn, 'lastOrderOn'));
  set('oc', integers(body.orderCount, 'orderCount'));
  set('oa', integers(body.orderAmount, 'orderAmount'));
  // Donations are always none in Emporium: a count or amount range without 0, or any donation
  // date, matches nobody.
  const donations = [
    integers(body.donationCount, 'donationCount'),
    integers(body.donationAmount, 'donationAmount'),
  ];
  const dated = [
    dates(body.firstDonationOn, 'firstDonationOn'),
    dates(body.lastDonationOn, 'lastDonationOn'),
  ];
  if (
    donations.some((r) => r && ((r[0] ?? 0) > 0 || (r[1] ?? 0) < 0)) ||
    dated.some((r) => r !== undefined)
  ) {
    q.x = true;
  }
  return q;
}

function toFilter(q: NormalQuery, minorPerUnit: number): pages.ContactFilter {
  const window = (pair: Pair<string> | undefined) =>
    pair && {
      after: pair[0] ? new Date(pair[0]) : undefined,
      before: pair[1] ? new Date(pair[1]) : undefined,
    };
  const range = (pair: Pair<number> | undefined, scale = 1) =>
    pair && {
      min: pair[0] === null ? undefined : pair[0] * scale,
      max: pair[1] === null ? undefined : pair[1] * scale,
    };
  return {
    words: q.words,
    acceptsMarketing: q.am,
    joinedOn: window(q.jo),
    firstOrderOn: window(q.fo),
    lastOrderOn: window(q.lo),
    orderCount: range(q.oc),
    // Whole currency units (platform-surface 2.6.3), the counters hold minor units.
    orderAmountMinor: range(q.oa, minorPerUnit),
    nothing: q.x,
  };
}

const NARROWING: (keyof ContactQueryInput)[] = [
  'searchString',
  'sortField',
  'sortDirection',
  'acceptsMarketingWithDate',
  'firstOrderOn',
  'lastOrderOn',
  'firstDonationOn',
  'lastDonationOn',
  'orderCount',
  'orderAmount',
  'donationCount',
  'donationAmount',
];

export interface PageRequest {
  cursor?: string;
  pageSize?: number;
  /** The query's body; the list sends none. */
  body?: ContactQueryInput;
}

export function listRequest(query: PageQueryT): PageRequest {
  return { cursor: query.cursor || undefined, pageSize: listPageSize(query.pageSize) };
}

export function queryRequest(body: ContactQueryInput): PageRequest {
  return { cursor: body.cursor || undefined, pageSize: body.pageSize, body };
}

function resume(cursors: CursorCodec, websiteId: string, request: PageRequest & { cursor: string }) {
  const c = cursors.decode<ContactCursor>(LIST, request.cursor);
  if (c.w !== websiteId || typeof c.q !== 'object' || !SORT_FIELDS.includes(c.q.s)) {
    throw new ValidationError('cursor: not a cursor returned by this API');
  }
  const body = request.body;
  if (body && NARROWING.some((key) => body[key] !== undefined)) {
    // A client may send its whole query again with the cursor: the same query is fine.
    if (JSON.stringify(normalize(body)) !== JSON.stringify(c.q)) {
      throw new ValidationError(
        'cursor: the cursor carries its own query; send it alone or with the same query',
      );
    }
  }
  return c;
}

/** One page of the website's contacts; the next page's URL is the list's, with the cursor. */
export async function contactPage(
  deps: { db: Db; cursors: CursorCodec; baseUrl: string },
  websiteId: string,
  request: PageRequest,
): Promise<{ contacts: ContactT[]; pagination: Pagination }> {
  const c = request.cursor
    ? resume(deps.cursors, websiteId, { ...request, cursor: request.cursor })
    : undefined;
  const q = c?.q ?? normalize(request.body ?? {});
  const size = request.pageSize ?? c?.n ?? DEFAULT_PAGE_SIZE;
  const website = q.oa ? await findWebsite(deps.db, websiteId) : undefined;
  const minorPerUnit = website ? 10 ** exponent(website.currency) : 1;
  const rows = await pages.selectContactPage(deps.db, websiteId, toFilter(q, minorPerUnit), {
    sortField: q.s,
    descending: q.d,
    after: c && { key: c.k, id: c.i },
    limit: size + 1,
  });
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  const next =
    rows.length > size && last
      ? deps.cursors.encode(LIST, {
          w: websiteId,
          q,
          n: size,
          k: last.sort_key,
          i: last.id,
        } satisfies ContactCursor)
      : null;
  return { contacts: page.map(toContact), pagination: pagination(next, `${deps.baseUrl}/v1/contacts`) };
}
