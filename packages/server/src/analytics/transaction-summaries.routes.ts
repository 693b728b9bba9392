import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { READ } from '../customers/contacts.routes.ts';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import { TransactionSummaries, TransactionSummariesBody } from './transaction-summaries.schemas.ts';
import { transactionSummaries } from './transaction-summaries.service.ts';

/** What the services these routes call need. */
type RouteDeps = Parameters<typeof transactionSummaries>[0];

/** /v1/analytics (platform-surface 2.8). */
export const analyticsRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.post(
    '/v1/analytics/transaction-summaries',
    {
      // No scope is stated (platform-surface 1, row 52): summaries are of contacts, read as contacts are.
      config: READ,
      schema: {
        tags: ['Analytics'],
        summary: 'Transaction summaries of contacts',
        description:
          'A read, sent as POST. For each of 1 to 1000 contact ids, in the order sent (a repeated id answered ' +
          'each time), the transactionsSummary of a profile, summed from the transaction documents of its orders: voided ' +
          'ones (canceled orders) left out, refunds in totalRefundAmount. An id with no transactions, or no ' +
          "contact of the website (a deleted contact's included, though its orders keep its id), gets zeros and " +
          'nulls. Scope website.contacts.read or website.profiles.read.',
        body: TransactionSummariesBody,
        response: { 200: TransactionSummaries, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => transactionSummaries(deps, websiteOf(request), request.body),
  );
};
