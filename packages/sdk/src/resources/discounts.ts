import { segment, type Caller } from '../client.js';
import { PagedList } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type {
  Discount,
  DiscountCreate,
  DiscountList,
  DiscountListParams,
  DiscountReplace,
} from '../types.js';

const PATH = '/v1/commerce/discounts';
const one = (id: string) => `${PATH}/${segment(id)}`;

/** `/v1/commerce/discounts` (scopes `website.discounts.read`, and `website.discounts` to write). */
export class Discounts {
  constructor(private readonly client: Caller) {}

  /**
   * A page (`limit`, default 50, from `offset`); await it for the page (`{ discounts, hasNextPage,
   * hasPreviousPage }`), or `for await` over every discount from `offset` on: the next page is
   * asked from the offset after the last one while `hasNextPage`. Sort: `sortBy` (`CREATED_ON`,
   * `PROMO_CODE`, `USES_COUNT`), `sortDirection`; filters: `search`, `status`, `criteria`,
   * `template`, `trigger` (lists), `limitedUseOnly`.
   */
  list(params: DiscountListParams = {}, options: CallOptions = {}): PagedList<DiscountList, Discount> {
    const first = params.offset ?? 0;
    const query = (offset: number) => ({ ...params, offset: offset || undefined });
    return new PagedList(
      (token) =>
        this.client.call<DiscountList>({
          method: 'GET',
          path: PATH,
          query: query(token === undefined ? first : Number(token)),
          ...options,
        }),
      (page) => page.discounts,
      (page, token) =>
        page.hasNextPage && page.discounts.length > 0
          ? String((token === undefined ? first : Number(token)) + page.discounts.length)
          : undefined,
    );
  }

  get(id: string, options: CallOptions = {}): Promise<Discount> {
    return this.client
      .call<{ discount: Discount }>({ method: 'GET', path: one(id), ...options })
      .then((body) => body.discount);
  }

  /**
   * Creates a discount. Not retried after a network error or a 5xx (the endpoint takes no
   * Idempotency-Key): a promo code discount sent twice would answer 409 the second time, an
   * automatic one would be made twice.
   */
  create(body: DiscountCreate, options: CallOptions = {}): Promise<Discount> {
    return this.client
      .call<{ discount: Discount }>({ method: 'POST', path: PATH, json: body, ...options })
      .then((res) => res.discount);
  }

  /** Replaces the whole discount (fields left out take their defaults); a discount as fetched may be sent back changed. */
  replace(id: string, body: DiscountReplace, options: CallOptions = {}): Promise<Discount> {
    return this.client
      .call<{ discount: Discount }>({ method: 'PUT', path: one(id), json: body, ...options })
      .then((res) => res.discount);
  }

  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: one(id), ...options });
  }
}
