import { Type, type Static } from 'typebox';
import { TransactionsSummary } from '../customers/profiles.schemas.ts';

/** The body and answer of `POST /v1/analytics/transaction-summaries` (platform-surface 2.8). */

export const MAX_CONTACT_IDS = 1000;

export const TransactionSummariesBody = Type.Object({
  contactIds: Type.Array(
    Type.String({
      maxLength: 100,
      description: 'a contact id (24 hex characters: an order customerId, a profile id)',
    }),
    {
      minItems: 1,
      maxItems: MAX_CONTACT_IDS,
      description:
        'one wrapper is answered for each entry, in the order sent, a repeated id included; an unknown ' +
        'id gets a summary of zeros and nulls',
    },
  ),
  groupBy: Type.Literal('contactId', { description: 'the only grouping there is' }),
});

export const TransactionsSummaryWrapper = Type.Object({
  contactId: Type.String({ description: 'as sent' }),
  transactionsSummary: TransactionsSummary,
});

export const TransactionSummaries = Type.Object({
  transactionsSummaryWrappers: Type.Array(TransactionsSummaryWrapper),
});

export type TransactionSummariesBodyT = Static<typeof TransactionSummariesBody>;
export type TransactionsSummaryWrapperT = Static<typeof TransactionsSummaryWrapper>;
export type TransactionsSummaryT = Static<typeof TransactionsSummary>;
