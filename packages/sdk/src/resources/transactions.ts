import { segment, type Caller } from '../client.js';
import { PagedList, batched } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type { TransactionDocument, TransactionList, TransactionListParams } from '../types.js';

const PATH = '/1.0/commerce/transactions';
/** platform-surface 2.2.2: documents per get request. */
const GET_BATCH = 50;

/** `/1.0/commerce/transactions` (scope `website.transactions.read`): one document per order. */
export class Transactions {
  constructor(private readonly client: Caller) {}

  /**
   * A page of 50 documents, newest change first; await it for the first page
   * (`{ documents, pagination }`), or `for await` over every document. Filters: `modifiedAfter`
   * with `modifiedBefore`, or `orderId` (the document of that order) alone.
   */
  list(
    params: TransactionListParams = {},
    options: CallOptions = {},
  ): PagedList<TransactionList, TransactionDocument> {
    return new PagedList(
      (cursor) =>
        this.client.call<TransactionList>({
          method: 'GET',
          path: PATH,
          query: cursor ? { cursor } : params,
          ...options,
        }),
      (page) => page.documents,
    );
  }

  /** One document by its id (a UUID, not the order's), or several in the order asked (more than 50: requests of 50). */
  get(id: string, options?: CallOptions): Promise<TransactionDocument>;
  get(ids: readonly string[], options?: CallOptions): Promise<TransactionDocument[]>;
  async get(
    ids: string | readonly string[],
    options: CallOptions = {},
  ): Promise<TransactionDocument | TransactionDocument[]> {
    const fetchBatch = async (batch: readonly string[]) =>
      (
        await this.client.call<{ documents: TransactionDocument[] }>({
          method: 'GET',
          path: `${PATH}/${batch.map(segment).join(',')}`,
          ...options,
        })
      ).documents;
    if (typeof ids === 'string') return (await fetchBatch([ids]))[0]!;
    return batched(ids, GET_BATCH, fetchBatch);
  }
}
