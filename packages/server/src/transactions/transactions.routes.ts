import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { websiteOf } from '../http/authenticate.ts';
import { errorResponses } from '../http/common.schemas.ts';
import {
  DocumentIdsParams,
  ListTransactionsQuery,
  TransactionPage,
  TransactionsById,
} from './transactions.schemas.ts';
import { getTransactions, listTransactions } from './transactions.service.ts';

/** What the services these routes call need, and what the handlers read themselves. */
type RouteDeps = Parameters<typeof getTransactions>[0] &
  Parameters<typeof listTransactions>[0] & { baseUrl: string };

const READ = { scope: 'website.transactions.read' };
const tags = ['Transactions'];
const PATH = '/1.0/commerce/transactions';

/** /1.0/commerce/transactions: the money movements of each order (platform-surface 2.2). */
export const transactionsRoutes: FastifyPluginAsyncTypebox<{ deps: RouteDeps }> = async (app, { deps }) => {
  app.get(
    PATH,
    {
      config: READ,
      schema: {
        tags,
        summary: 'List transaction documents',
        description:
          'At most 50 documents a page, newest change first (modifiedOn then id, descending), with cursor pagination. ' +
          'modifiedAfter and modifiedBefore come together and select the window (modifiedAfter, modifiedBefore]; ' +
          'orderId selects the document of one order and takes no window; the cursor carries the filters of the ' +
          'first request and takes no other parameter.',
        querystring: ListTransactionsQuery,
        response: { 200: TransactionPage, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => listTransactions(deps, websiteOf(request), request.query, `${deps.baseUrl}${PATH}`),
  );

  app.get(
    `${PATH}/:documentIds`,
    {
      config: READ,
      schema: {
        tags,
        summary: 'Get transaction documents by id',
        description:
          'In the order asked. More than 50 ids: 400. Any id not found, not a UUID or of another website: 404.',
        params: DocumentIdsParams,
        response: { 200: TransactionsById, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const ids = request.params.documentIds.split(',').map((id) => id.trim());
      return { documents: await getTransactions(deps, websiteOf(request), ids) };
    },
  );
};
