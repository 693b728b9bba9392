import type { Caller } from '../client.js';
import { PagedList } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type { StorePage, StorePageList } from '../types.js';

/** `/1.0/commerce/store_pages` */
export class StorePages {
  constructor(private readonly client: Caller) {}

  list(options: CallOptions = {}): PagedList<StorePageList, StorePage> {
    return new PagedList(
      (cursor) =>
        this.client.call<StorePageList>({
          method: 'GET',
          path: '/1.0/commerce/store_pages',
          query: { cursor },
          ...options,
        }),
      (page) => page.storePages,
    );
  }
}
