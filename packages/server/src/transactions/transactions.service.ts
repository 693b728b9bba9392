import type { Clock } from '../shared/clock.ts';
import { closeWindow } from '../db/change-clock.ts';
import type { DatabaseHandle, Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { pagination, type CursorCodec, type Pagination } from '../pagination/cursor.ts';
import { BOTH_DATES, parseWindow } from '../shared/iso-time.ts';
import type { TransactionDocumentsTable } from '../db/schema.ts';
import type { PlacedOrder } from '../shared/order-model.ts';
import { transactionDocument } from './transaction-document.ts';
import * as repo from './transactions.repo.ts';
import type { ListTransactionsQueryT, TransactionDocumentT } from './transactions.schemas.ts';

/** Transaction documents (platform-surface 2.2): one per order, written with it, read by apps. */

export const PAGE_SIZE = 50;
export const MAX_IDS = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROVISIONAL = new Date(0);

/**
 * The row of the document of an order just placed, which its caller inserts with the order
 * (orders.repo insertOrder). The caller stamps created_on and modified_on last, with the change
 * clock, as every change-clocked row is. Until then they hold the epoch, as the order row does:
 * the stamps start past the website's newest modified_on, these rows included, so the placing
 * time of an import (any time it sent, a future one too) would carry the website's clock along.
 */
export function transactionRow(deps: { ids: Ids }, order: PlacedOrder): TransactionDocumentsTable {
  return {
    id: deps.ids.uuid(),
    website_id: order.websiteId,
    order_id: order.id,
    created_on: PROVISIONAL,
    modified_on: PROVISIONAL,
    voided: false,
    document: JSON.stringify(transactionDocument(order, deps.ids)),
  };
}

function toDocument(row: repo.DocumentRow): TransactionDocumentT {
  // `voided` from its column, in its wire position: canceling an order voids the document
  // without rewriting it.
  return {
    id: row.id,
    createdOn: row.created_on.toISOString(),
    modifiedOn: row.modified_on.toISOString(),
    ...row.document,
    voided: row.voided,
  };
}

/** Documents by id, in the order asked; any id missing, malformed or of another website is a 404. */
export async function getTransactions(
  deps: { db: Db },
  websiteId: string,
  ids: string[],
): Promise<TransactionDocumentT[]> {
  if (ids.length === 0 || ids.some((id) => id === ''))
    throw new ValidationError('documentIds: one or more document ids, comma-separated');
  const wanted = ids.map((id) => id.toLowerCase());
  const unique = [...new Set(wanted)];
  if (unique.length > MAX_IDS) throw new ValidationError(`documentIds: at most ${MAX_IDS} ids a request`);
  const rows = await repo.selectDocuments(
    deps.db,
    websiteId,
    unique.filter((id) => UUID.test(id)),
  );
  const found = new Map(rows.map((row) => [row.id, toDocument(row)]));
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined) throw new NotFound(`transaction document not found: ${missing}`);
  return wanted.map((id) => found.get(id)!);
}

/** What a cursor remembers: the last position seen and the filters of the first request. */
interface DocumentCursor {
  w: string;
  m: number;
  i: string;
  a?: number;
  b?: number;
  o?: string;
}

/**
 * The filters from the query string, or from the cursor that carried them forward. The rules are
 * the orders list's (platform-surface 2.1.1, open question Q7): the cursor stands alone, the two
 * dates come together, and orderId, which names one document, takes no window.
 */
function parseListQuery(
  query: ListTransactionsQueryT,
  cursors: CursorCodec,
  websiteId: string,
): repo.DocumentFilter {
  const present = (v: string | undefined): v is string => v !== undefined && v !== '';
  const { cursor, modifiedAfter, modifiedBefore, orderId } = query;
  if (present(cursor)) {
    if (present(modifiedAfter) || present(modifiedBefore) || present(orderId)) {
      throw new ValidationError('Cursor cannot be set while other parameters are present.');
    }
    const c = cursors.decode<DocumentCursor>('transactions', cursor);
    if (c.w !== websiteId || typeof c.m !== 'number' || typeof c.i !== 'string' || !UUID.test(c.i)) {
      throw new ValidationError('cursor: not a cursor returned by this API');
    }
    return {
      before: { modifiedOn: new Date(c.m), id: c.i },
      window:
        c.a !== undefined && c.b !== undefined ? { after: new Date(c.a), before: new Date(c.b) } : undefined,
      orderId: c.o,
    };
  }
  const filter: repo.DocumentFilter = { window: parseWindow(modifiedAfter, modifiedBefore, BOTH_DATES) };
  if (filter.window && present(orderId)) {
    throw new ValidationError('orderId: cannot be combined with modifiedAfter and modifiedBefore');
  }
  if (present(orderId)) filter.orderId = orderId;
  return filter;
}

/**
 * A page of the website's documents, newest change first ((modifiedOn, id) descending), as the
 * orders list (open question Q3). A window is read once the changes stamped in it are visible
 * (closeWindow), so a reader whose next window starts at this one's end misses none.
 */
export async function listTransactions(
  deps: { db: Db; pool: DatabaseHandle['pool']; clock: Clock; cursors: CursorCodec },
  websiteId: string,
  query: ListTransactionsQueryT,
  pageUrl: string,
): Promise<{ documents: TransactionDocumentT[]; pagination: Pagination }> {
  const filter = parseListQuery(query, deps.cursors, websiteId);
  if (filter.window) await closeWindow(deps, websiteId, filter.window.before);
  const rows = await repo.selectDocumentPage(deps.db, websiteId, filter, PAGE_SIZE + 1);
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[page.length - 1];
  let nextCursor: string | null = null;
  if (rows.length > PAGE_SIZE && last) {
    const cursor: DocumentCursor = { w: websiteId, m: last.modified_on.getTime(), i: last.id };
    if (filter.window) {
      cursor.a = filter.window.after.getTime();
      cursor.b = filter.window.before.getTime();
    }
    if (filter.orderId !== undefined) cursor.o = filter.orderId;
    nextCursor = deps.cursors.encode('transactions', cursor);
  }
  return { documents: page.map(toDocument), pagination: pagination(nextCursor, pageUrl) };
}
