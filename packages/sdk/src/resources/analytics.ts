import type { Caller } from '../client.js';
import { batched } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type {
  TransactionSummaries,
  TransactionSummariesRequest,
  TransactionsSummaryWrapper,
} from '../types.js';

const PATH = '/v1/analytics/transaction-summaries';
/** platform-surface 2.8: contact ids per request. */
const BATCH = 1000;

/** `/v1/analytics` (scope `website.contacts.read` or `website.profiles.read`). */
export class Analytics {
  constructor(private readonly client: Caller) {}

  /**
   * The transaction summary of each contact id (an order's `customerId`, a profile's id), in the
   * order given, one for each id even when repeated; an id with no orders gets zeros and nulls.
   * Any number of ids: requests of 1000. The call is a read, so it is retried like one.
   */
  transactionSummaries(
    contactIds: readonly string[],
    options: CallOptions = {},
  ): Promise<TransactionsSummaryWrapper[]> {
    return batched(contactIds, BATCH, async (batch) => {
      const body: TransactionSummariesRequest = { contactIds: batch, groupBy: 'contactId' };
      const answer = await this.client.call<TransactionSummaries>({
        method: 'POST',
        path: PATH,
        json: body,
        idempotent: true,
        ...options,
      });
      return answer.transactionsSummaryWrappers;
    });
  }
}
