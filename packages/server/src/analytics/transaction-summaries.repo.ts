import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** SQL of contacts' transaction summaries (platform-surface 2.8). */

export interface SummaryRow {
  customer_id: string;
  order_count: number;
  first_order_on: Date;
  last_order_on: Date;
  /** Sums of the documents' decimal strings, exact (numeric), as text: `106.60`. */
  total_order: string;
  total_refund: string;
}

export interface Summaries {
  /** The website's currency: every document of the website is written in it (place-order.ts). */
  currency: string;
  rows: SummaryRow[];
}

/**
 * The sums of these customers' transaction documents, voided ones (canceled orders) left out, in
 * one statement: the orders of each customer through (website_id, customer_id, ...), each order's
 * document through (website_id, order_id). Only customers that are contacts of the website now
 * count: a deleted contact's orders keep its id as customerId, but a summary is a contact's (2.8),
 * so that id gets none, as an unknown one. Amounts are summed as `numeric` from the documents'
 * decimal strings, so no float ever holds them; refunds are the payments' refundedAmount. The
 * order's placed_on is when it was submitted (an import's createdOn, not when it was imported).
 * The website row comes along, for its currency, even when no customer has a document.
 */
export async function selectSummaries(db: Db, websiteId: string, customerIds: string[]): Promise<Summaries> {
  const { rows } = await sql<{ currency: string } & { [K in keyof SummaryRow]: SummaryRow[K] | null }>`
    WITH summaries AS (
      SELECT o.customer_id,
        count(*)::int AS order_count,
        min(o.placed_on) AS first_order_on,
        max(o.placed_on) AS last_order_on,
        sum((d.document -> 'total' ->> 'value')::numeric)::text AS total_order,
        coalesce(sum(r.refunded), 0)::text AS total_refund
      FROM orders o
      JOIN profiles c ON c.website_id = o.website_id AND c.id = o.customer_id
      JOIN transaction_documents d ON d.website_id = o.website_id AND d.order_id = o.id
      CROSS JOIN LATERAL (
        SELECT sum((p -> 'refundedAmount' ->> 'value')::numeric) AS refunded
        FROM json_array_elements(d.document -> 'payments') AS p
      ) r
      WHERE o.website_id = ${websiteId} AND o.customer_id = ANY(${customerIds}::text[]) AND NOT d.voided
      GROUP BY o.customer_id
    )
    SELECT w.currency, s.*
    FROM websites w LEFT JOIN summaries s ON true
    WHERE w.id = ${websiteId}`.execute(db);
  const currency = rows[0]?.currency ?? '';
  return {
    currency,
    rows: rows.filter((row): row is typeof row & SummaryRow => row.customer_id !== null),
  };
}
