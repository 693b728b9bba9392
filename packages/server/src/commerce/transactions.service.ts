import type { Clock } from '../clock.ts';
import { fromMinorUnits, type Money } from '../catalog/money.ts';
import { closeWindow } from '../db/change-clock.ts';
import type { DatabaseHandle, Db } from '../db/database.ts';
import { NotFound, ValidationError } from '../errors.ts';
import type { Ids } from '../ids.ts';
import { pagination, type CursorCodec, type Pagination } from '../pagination/cursor.ts';
import type { AddressJson, Payment, PlacedOrder } from './order-model.ts';
import * as repo from './transactions.repo.ts';
import type {
  ListTransactionsQueryT,
  PaymentT,
  StoredDocumentT,
  TransactionDocumentT,
} from './transactions.schemas.ts';

/** Transaction documents (platform-surface 2.2): one per order, written with it, read by apps. */

export const PAGE_SIZE = 50;
export const MAX_IDS = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const TAX_NAME = 'Sales tax';
const PROVISIONAL = new Date(0);

/**
 * Splits `total` minor units over `weights` in proportion, each share rounded down and the last
 * taking what rounding left, so the shares always sum to `total` exactly. BigInt: a weight times
 * a total can pass 2^53.
 */
export function allocate(total: number, weights: number[]): number[] {
  if (weights.length === 0) return [];
  const positive = weights.map((w) => BigInt(Math.max(0, w)));
  const sum = positive.reduce((a, b) => a + b, 0n);
  const shares = positive.map((w) => (sum > 0n ? Number((BigInt(total) * w) / sum) : 0));
  shares[shares.length - 1] = total - shares.slice(0, -1).reduce((a, b) => a + b, 0);
  return shares;
}

/** `tax` as a percent of `base` with two decimals, rounded half up ("7.00"); "0.00" without a base. */
export function taxRate(tax: number, base: number): string {
  if (base <= 0) return '0.00';
  const hundredths = (BigInt(tax) * 20000n + BigInt(base)) / (2n * BigInt(base));
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
}

/** `COUNTRY:US,STATE:NY`, from where the order ships, else where it is billed. */
function jurisdiction(order: PlacedOrder): string | null {
  const address: AddressJson | null = order.shippingAddress?.countryCode
    ? order.shippingAddress
    : order.billingAddress;
  const country = address?.countryCode?.trim().toUpperCase();
  if (!country) return null;
  const state = address?.state?.trim().toUpperCase();
  return state ? `COUNTRY:${country},STATE:${state}` : `COUNTRY:${country}`;
}

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A processing fee id like the platform's `2Jdsno3mdk`: ten letters and digits, from the low 62
 * bits of a UUID (all random in a v4), so the builder's only randomness is the injected ids.
 */
function feeId(ids: Ids): string {
  let n = BigInt(`0x${ids.uuid().replace(/-/g, '')}`);
  let id = '';
  for (let i = 0; i < 10; i++) {
    id += ALPHANUMERIC[Number(n % 62n)];
    n /= 62n;
  }
  return id;
}

function paymentOf(order: PlacedOrder, paid: Payment, ids: Ids, money: (minor: number) => Money): PaymentT {
  const fee = paid.processingFeeMinor;
  return {
    id: ids.uuid(),
    amount: money(order.grandTotalMinor),
    refundedAmount: money(0),
    netAmount: money(order.grandTotalMinor - fee),
    creditCardType: paid.creditCardType,
    provider: paid.provider,
    refunds: [],
    // The gateway charges in the website's currency here, hence a rate of 1.
    processingFees:
      fee > 0
        ? [
            {
              id: feeId(ids),
              amount: money(fee),
              amountGatewayCurrency: money(fee),
              exchangeRate: 1,
              refundedAmount: money(0),
              refundedAmountGatewayCurrency: money(0),
              netAmount: money(fee),
              netAmountGatewayCurrency: money(fee),
              feeRefunds: [],
            },
          ]
        : [],
    giftCardId: null,
    paidOn: paid.paidOn.toISOString(),
    externalTransactionId: paid.externalTransactionId,
    externalTransactionProperties: [],
    externalCustomerId: null,
  };
}

/**
 * The stored part of an order's document (platform-surface 2.2.3), in wire order. The order's
 * discount and tax are spread over its lines in proportion (allocate), so the lines add up to the
 * order's totals to the minor unit.
 *
 * Tax: EXCLUSIVE prices exclude it, so a line's `total` is its net sales plus its tax and the
 * rate is the tax over the net sales. INCLUSIVE prices already contain it: `totalSales` and
 * `totalNetSales` include the tax, a line's `total` equals its net sales, and the rate is the tax
 * over the net sales without it. Either way `total` is the order's grandTotal.
 */
export function transactionDocument(order: PlacedOrder, ids: Ids): StoredDocumentT {
  // Signed: a net can go below zero (a discount above the subtotal, a fee above the payment).
  const money = (minor: number): Money => {
    const { currency, value } = fromMinorUnits(Math.abs(minor), order.currency);
    return { currency, value: minor < 0 ? `-${value}` : value };
  };
  const inclusive = order.priceTaxInterpretation === 'INCLUSIVE';
  const sales = order.lineItems.map((line) => line.unitPricePaidMinor * line.quantity);
  const discounts = allocate(order.discountTotalMinor, sales);
  const net = sales.map((s, i) => s - discounts[i]!);
  const taxed = order.taxTotalMinor > 0;
  const taxes = taxed ? allocate(order.taxTotalMinor, net) : net.map(() => 0);
  const netSales = order.subtotalMinor - order.discountTotalMinor;
  const rate = taxRate(order.taxTotalMinor, inclusive ? netSales - order.taxTotalMinor : netSales);
  const where = jurisdiction(order);
  const payments = order.payment ? [paymentOf(order, order.payment, ids, money)] : [];
  // The net of the one payment there is; an import has none (it was paid on another channel).
  const netPayment = order.payment ? order.grandTotalMinor - order.payment.processingFeeMinor : 0;
  return {
    customerEmail: order.customerEmail,
    salesOrderId: order.id,
    voided: false,
    totalSales: money(order.subtotalMinor),
    totalNetSales: money(netSales),
    totalNetShipping: money(order.shippingTotalMinor),
    totalTaxes: money(order.taxTotalMinor),
    total: money(order.grandTotalMinor),
    totalNetPayment: money(netPayment),
    payments,
    salesLineItems: sales.map((total, i) => ({
      id: ids.uuid(),
      discountAmount: money(discounts[i]!),
      totalSales: money(total),
      totalNetSales: money(net[i]!),
      total: money(inclusive ? net[i]! : net[i]! + taxes[i]!),
      taxes: taxed ? [{ amount: money(taxes[i]!), rate, name: TAX_NAME, jurisdiction: where }] : [],
    })),
    // `description` is the deprecated twin of `name`, as on the order's discountLines.
    discounts: order.discountLines.map((d) => ({
      description: d.name,
      name: d.name,
      amount: money(d.amountMinor),
    })),
    shippingLineItems: order.shippingLines.map((s) => ({
      id: ids.uuid(),
      description: s.method,
      amount: money(s.amountMinor),
      discountAmount: money(0),
      netAmount: money(s.amountMinor),
      taxes: [],
    })),
    paymentGatewayError: null,
  };
}

/**
 * Writes the document of an order just placed, in the order's transaction; returns its id. The
 * caller stamps created_on and modified_on last, with stampRows(), as every change-clocked row is.
 * Until then they hold the epoch, as the order row does: stampRows starts past the website's
 * newest modified_on, these rows included, so the placing time of an import (any time it sent,
 * a future one too) would carry the website's clock along.
 */
export async function recordTransaction(trx: Db, deps: { ids: Ids }, order: PlacedOrder): Promise<string> {
  const id = deps.ids.uuid();
  await repo.insertDocument(trx, {
    id,
    website_id: order.websiteId,
    order_id: order.id,
    created_on: PROVISIONAL,
    modified_on: PROVISIONAL,
    voided: false,
    document: JSON.stringify(transactionDocument(order, deps.ids)),
  });
  return id;
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

function parseTimestamp(value: string, field: string): Date {
  const time = UTC_TIMESTAMP.test(value) ? Date.parse(value) : NaN;
  // Date.parse rolls impossible dates over (February 30 becomes March 2): refuse them instead.
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 19) !== value.slice(0, 19)) {
    throw new ValidationError(`${field}: must be an ISO 8601 UTC time such as 2026-01-31T12:00:00.000Z`);
  }
  return new Date(time);
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
  if (present(modifiedAfter) !== present(modifiedBefore)) {
    throw new ValidationError(
      "'modifiedBefore' and 'modifiedAfter' must both be specified.",
      'MISSING_ARGUMENT',
    );
  }
  const filter: repo.DocumentFilter = {};
  if (present(modifiedAfter) && present(modifiedBefore)) {
    if (present(orderId)) {
      throw new ValidationError('orderId: cannot be combined with modifiedAfter and modifiedBefore');
    }
    const after = parseTimestamp(modifiedAfter, 'modifiedAfter');
    const before = parseTimestamp(modifiedBefore, 'modifiedBefore');
    if (before <= after) throw new ValidationError('modifiedBefore: must be later than modifiedAfter');
    filter.window = { after, before };
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
