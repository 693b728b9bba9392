import { decimalToMinorUnits, fromMinorUnits } from '../shared/money.ts';
import type { Db } from '../db/database.ts';
import { selectSummaries, type SummaryRow } from './transaction-summaries.repo.ts';
import type {
  TransactionSummariesBodyT,
  TransactionsSummaryT,
  TransactionsSummaryWrapperT,
} from './transaction-summaries.schemas.ts';
import { OBJECT_ID } from '../shared/ids.ts';

/**
 * Contacts' transaction summaries (platform-surface 2.8), computed from the website's transaction
 * documents. A contact id is an order's customerId, which is also the buyer's profile id
 * (open questions 5 and 11: 24-hex ids).
 */

/** The summary of 2.3.3. Emporium takes no donations: their part is always empty. */
function summary(row: SummaryRow | undefined, currency: string): TransactionsSummaryT {
  const money = (minor: number) => fromMinorUnits(minor, currency);
  return {
    firstOrderSubmittedOn: row?.first_order_on.toISOString() ?? null,
    lastOrderSubmittedOn: row?.last_order_on.toISOString() ?? null,
    orderCount: row?.order_count ?? 0,
    totalOrderAmount: money(row ? decimalToMinorUnits(row.total_order, currency) : 0),
    totalRefundAmount: money(row ? decimalToMinorUnits(row.total_refund, currency) : 0),
    firstDonationSubmittedOn: null,
    lastDonationSubmittedOn: null,
    donationCount: 0,
    totalDonationAmount: money(0),
  };
}

/**
 * One wrapper for each id sent, in the order sent, a repeated id answered each time, so that the
 * answer lines up with the request; the id echoed as sent, matched whatever its case. An id that
 * is no contact of the website (unknown, malformed, another website's) has the summary of one
 * with no transactions: zeros and nulls (2.8, "still returned with null or 0 values").
 */
export async function transactionSummaries(
  deps: { db: Db },
  websiteId: string,
  body: TransactionSummariesBodyT,
): Promise<{ transactionsSummaryWrappers: TransactionsSummaryWrapperT[] }> {
  const wanted = body.contactIds.map((id) => id.toLowerCase());
  const ids = [...new Set(wanted.filter((id) => OBJECT_ID.test(id)))];
  const { currency, rows } = await selectSummaries(deps.db, websiteId, ids);
  const found = new Map(rows.map((row) => [row.customer_id, summary(row, currency)]));
  const empty = summary(undefined, currency);
  return {
    transactionsSummaryWrappers: body.contactIds.map((contactId, i) => ({
      contactId,
      transactionsSummary: found.get(wanted[i]!) ?? empty,
    })),
  };
}
