import { listPageHeads, type Head } from '../catalog/list-cache.ts';
import type { Reader } from '../catalog/products.repo.ts';
import type { Clock } from '../shared/clock.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { documentList, ownBuffer } from '../http/json-reply.ts';
import { BOTH_DATES, parseWindow } from '../shared/iso-time.ts';
import { pagination, type CursorCodec } from '../pagination/cursor.ts';
import { settledPage } from '../pagination/settled-page.ts';
import { toOrder, type OrderJson, type OrderRow } from './order-document.ts';
import type { OrderCaches } from './order-caches.ts';
import { FULFILLMENT_STATUSES, PAYMENT_STATES, type FulfillmentStatus } from '../shared/order-model.ts';
import type { ListOrdersQueryT } from './orders.schemas.ts';
import * as repo from './orders.repo.ts';
import { OBJECT_ID } from '../shared/ids.ts';

export const PAGE_SIZE = 50;
/** The payment states listed when the query names none (platform-surface 2.1.1). */
const DEFAULT_PAYMENT_STATES = ['NOT_CHARGED', 'AUTHORIZED', 'PAID', 'REFUNDED'];

type ReadDeps = Reader & { orders: OrderCaches };

/** An order id is 24 hex characters; anything else is a 400 (platform-surface 2.1.2). */
export function checkOrderId(id: string): void {
  if (!OBJECT_ID.test(id)) throw new ValidationError('id is not in the expected format');
}

/** The order as sent, rendered once per version. */
export function renderOrder(deps: { orders: OrderCaches }, row: OrderRow): Buffer {
  const version = row.modified_on.getTime();
  const cached = deps.orders.documents.at(row.id, version);
  if (cached) return cached;
  const json = ownBuffer(JSON.stringify(toOrder(row)));
  deps.orders.documents.set(row.id, version, json, deps.orders.documents.generation);
  return json;
}

export async function getOrder(deps: ReadDeps, websiteId: string, id: string): Promise<Buffer> {
  checkOrderId(id);
  const [row] = await repo.selectOrders(deps.db, websiteId, [id]);
  if (!row) throw new NotFound(`order not found: ${id}`);
  return renderOrder(deps, row);
}

/** What a cursor carries: the last position and the filters of the first request. */
interface OrderCursor {
  w: string;
  m: number;
  i: string;
  a?: number;
  b?: number;
  f?: string;
  c?: string;
  p: string[];
}

function parsePaymentStates(value: string): string[] {
  const states = [...new Set(value.split(',').map((s) => s.trim()))];
  const unknown = states.find((s) => !(PAYMENT_STATES as readonly string[]).includes(s));
  if (unknown !== undefined) {
    throw new ValidationError(
      `paymentStates: unknown payment state "${unknown}"; use ${PAYMENT_STATES.join(', ')}`,
    );
  }
  return states.sort();
}

/** The filters from the query string (platform-surface 2.1.1), or from the cursor that carries them. */
function parseListQuery(query: ListOrdersQueryT, cursors: CursorCodec, websiteId: string): repo.OrderFilter {
  const present = (v: string | undefined) => v !== undefined && v !== '';
  const { cursor, modifiedAfter, modifiedBefore, fulfillmentStatus, customerId, paymentStates } = query;
  if (present(cursor)) {
    if ([modifiedAfter, modifiedBefore, fulfillmentStatus, customerId, paymentStates].some(present)) {
      throw new ValidationError('Cursor cannot be set while other parameters are present.');
    }
    const c = cursors.decode<OrderCursor>('orders', cursor!);
    if (c.w !== websiteId || typeof c.m !== 'number' || typeof c.i !== 'string' || !Array.isArray(c.p)) {
      throw new ValidationError('cursor: not a cursor returned by this API');
    }
    return {
      before: { modifiedOn: new Date(c.m), id: c.i },
      window:
        c.a !== undefined && c.b !== undefined ? { after: new Date(c.a), before: new Date(c.b) } : undefined,
      fulfillmentStatus: c.f,
      customerId: c.c,
      paymentStates: c.p,
    };
  }
  const filter: repo.OrderFilter = {
    window: parseWindow(modifiedAfter, modifiedBefore, BOTH_DATES),
    paymentStates: present(paymentStates) ? parsePaymentStates(paymentStates!) : DEFAULT_PAYMENT_STATES,
  };
  if (present(fulfillmentStatus)) {
    if (!(FULFILLMENT_STATUSES as readonly string[]).includes(fulfillmentStatus!)) {
      throw new ValidationError(
        `fulfillmentStatus: unknown status "${fulfillmentStatus}"; use ${FULFILLMENT_STATUSES.join(', ')}`,
      );
    }
    filter.fulfillmentStatus = fulfillmentStatus;
  }
  if (present(customerId)) filter.customerId = customerId;
  return filter;
}

/** The orders of these heads at their versions; one changed since is left out (settled-page.ts). */
async function documentsAt(deps: ReadDeps, websiteId: string, heads: Head[]): Promise<Buffer[]> {
  const found = new Map<string, Buffer>();
  const missing: string[] = [];
  for (const { id, version } of heads) {
    const cached = deps.orders.documents.at(id, version);
    if (cached) found.set(id, cached);
    else missing.push(id);
  }
  for (const row of await repo.selectOrders(deps.db, websiteId, missing)) {
    const json = renderOrder(deps, row);
    if (heads.some((h) => h.id === row.id && h.version === row.modified_on.getTime()))
      found.set(row.id, json);
  }
  return heads.flatMap((head) => found.get(head.id) ?? []);
}

/**
 * `GET /1.0/commerce/orders`: a page of orders, newest change first (platform-surface Q3), as
 * the response body, `{result, pagination}`.
 */
export async function listOrders(
  deps: ReadDeps & { clock: Clock; cursors: CursorCodec },
  websiteId: string,
  query: ListOrdersQueryT,
  pageUrl: string,
): Promise<Buffer> {
  const filter = parseListQuery(query, deps.cursors, websiteId);
  return settledPage(async (fresh) => {
    const read = () => repo.selectOrderPage(deps, websiteId, filter, PAGE_SIZE + 1);
    const { rows, key } = await listPageHeads(deps, deps.orders.lists, websiteId, filter, fresh, read);
    const bodyKey = key !== undefined && !query.cursor ? `${pageUrl} ${key}` : undefined;
    const cached = bodyKey !== undefined ? deps.orders.lists.cachedBody(bodyKey) : undefined;
    if (cached) return { body: cached, complete: true };
    const page = rows.slice(0, PAGE_SIZE);
    const nextCursor = rows.length > PAGE_SIZE ? cursorAfter(deps.cursors, websiteId, filter, page) : null;
    const orders = await documentsAt(deps, websiteId, page);
    const body = documentList(
      'result',
      orders,
      `,"pagination":${JSON.stringify(pagination(nextCursor, pageUrl))}`,
    );
    const complete = orders.length === page.length;
    if (complete && bodyKey !== undefined) deps.orders.lists.keepBody(bodyKey, body);
    return { body, complete };
  });
}

/** The cursor to the page after this one, which ends with `page`'s last order. */
function cursorAfter(
  cursors: CursorCodec,
  websiteId: string,
  filter: repo.OrderFilter,
  page: Head[],
): string {
  const last = page[page.length - 1]!;
  const cursor: OrderCursor = { w: websiteId, m: last.version, i: last.id, p: filter.paymentStates };
  if (filter.window) {
    cursor.a = filter.window.after.getTime();
    cursor.b = filter.window.before.getTime();
  }
  if (filter.fulfillmentStatus) cursor.f = filter.fulfillmentStatus;
  if (filter.customerId) cursor.c = filter.customerId;
  return cursors.encode('orders', cursor);
}

/**
 * An order for the owner's pages: as sent, when it was placed, as a time to show, and whether
 * placing it took stock (null: not recorded, for orders older than that record).
 */
export type OwnerOrder = OrderJson & { placedOn: Date; stockTaken: boolean | null };

const ownerOrder = (row: OrderRow): OwnerOrder => ({
  ...toOrder(row),
  placedOn: row.placed_on,
  stockTaken: row.stock_taken,
});

/** The owner pages' next-page token: the last order's placing time (ms) and id. */
const PLACED_POSITION = /^(\d{1,15})\.([0-9a-f]{24})$/;

/** What the owner's list may be filtered by, as the page's query string has it. */
export interface PlacedQuery {
  fulfillmentStatus?: string;
  before?: string;
  /** Placed on or after this day (YYYY-MM-DD) in the website's time zone. */
  from?: string;
  /** Placed on or before this day. */
  to?: string;
  /** An order number (`1042` or `#1042`), or part of the buyer's e-mail. */
  search?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ORDER_NUMBER = /^#?(\d{1,9})$/;
const MAX_SEARCH = 200;

function day(value: string | undefined, label: string): string | undefined {
  if (!value) return undefined;
  const parsed = DAY.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  // Year 0 is a date to JavaScript but not to PostgreSQL.
  const valid = parsed && !Number.isNaN(parsed.getTime()) && parsed.getUTCFullYear() >= 1;
  if (!valid || parsed.toISOString().slice(0, 10) !== value) {
    throw new ValidationError(`${label}: not a date; use the form YYYY-MM-DD.`);
  }
  return value;
}

/** The query's filters, checked; every refusal names the field as the page labels it. */
function placedFilter(query: PlacedQuery, timeZone: string): repo.PlacedFilter {
  const { fulfillmentStatus, before } = query;
  if (fulfillmentStatus && !(FULFILLMENT_STATUSES as readonly string[]).includes(fulfillmentStatus)) {
    throw new ValidationError(`Unknown fulfillment status "${fulfillmentStatus}".`);
  }
  const position = before ? PLACED_POSITION.exec(before) : undefined;
  if (position === null)
    throw new ValidationError('This page link is not one of ours; go back to the first page.');
  const from = day(query.from, 'Placed from');
  const to = day(query.to, 'Placed until');
  if (from && to && from > to) throw new ValidationError('Placed from: must be on or before "Placed until".');
  const search = query.search?.trim() ?? '';
  if (search.length > MAX_SEARCH) throw new ValidationError(`Search: at most ${MAX_SEARCH} characters.`);
  const number = ORDER_NUMBER.exec(search);
  return {
    timeZone,
    ...(fulfillmentStatus && { fulfillmentStatus: fulfillmentStatus as FulfillmentStatus }),
    ...(position && { before: { placedOn: new Date(Number(position[1])), id: position[2]! } }),
    ...(from && { from }),
    ...(to && { to }),
    ...(number ? { orderNumber: Number(number[1]) } : search && { email: search }),
  };
}

/**
 * The owner's order list: a page of the website's orders, newest placed first, every payment
 * state, filtered by fulfillment status, placing days (in the website's time zone) and an order
 * number or e-mail; `next` continues it (`before` of the next call, with the same filters).
 */
export async function placedOrders(
  deps: Reader,
  website: { id: string; time_zone: string },
  query: PlacedQuery,
): Promise<{ orders: OwnerOrder[]; next: string | null }> {
  const rows = await repo.selectPlacedPage(
    deps.db,
    website.id,
    placedFilter(query, website.time_zone),
    PAGE_SIZE + 1,
  );
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[page.length - 1];
  const next = rows.length > PAGE_SIZE && last ? `${last.placed_on.getTime()}.${last.id}` : null;
  return { orders: page.map(ownerOrder), next };
}

/** One order of the website for the owner's pages; any other id, well formed or not, is not found. */
export async function findOrder(deps: Reader, websiteId: string, id: string): Promise<OwnerOrder> {
  const [row] = OBJECT_ID.test(id) ? await repo.selectOrders(deps.db, websiteId, [id]) : [];
  if (!row) throw new NotFound('There is no such order on this site.');
  return ownerOrder(row);
}
