import { segment, type Caller } from '../client.js';
import { PagedList, batched } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type { ProductApi11, ProductApiTypes } from '../types.js';
import { Images } from './images.js';
import { Variants } from './variants.js';

/** The products APIs: 1.1 (PHYSICAL and DIGITAL products) and v2 (every type), over one store. */
export const PRODUCTS_1_1 = '/1.1/commerce/products';
export const PRODUCTS_V2 = '/v2/commerce/products';
/** The window of changedSince(): from the given time on (modifiedBefore is required with modifiedAfter). */
const EPOCH = '1970-01-01T00:00:00.000Z';
const OPEN_END = '9999-12-31T23:59:59.999Z';
/** spec, Limits: products per get request. */
export const GET_BATCH = 50;

/**
 * `/1.1/commerce/products` (`client.products`) or `/v2/commerce/products` (`client.v2.products`):
 * the same calls under either base path, typed by that version's types (`A`).
 */
export class Products<A extends ProductApiTypes = ProductApi11> {
  readonly images: Images<A>;
  readonly variants: Variants<A>;

  constructor(
    private readonly client: Caller,
    /** The path of the collection, e.g. `/v2/commerce/products`. */
    readonly basePath: string = PRODUCTS_1_1,
  ) {
    this.images = new Images<A>(client, basePath);
    this.variants = new Variants<A>(client, basePath);
  }

  /**
   * A page of 50, oldest change first; await it for the first page, or `for await` over every
   * product. Filters: `query`, `type` (`'PHYSICAL'`, `['PHYSICAL', 'DIGITAL']`; v2: every type
   * when left out), and `modifiedAfter` with `modifiedBefore`.
   */
  list(params: A['listParams'] = {}, options: CallOptions = {}): PagedList<A['list'], A['product']> {
    return new PagedList(
      (cursor) =>
        this.client.call<A['list']>({
          method: 'GET',
          path: this.basePath,
          query: cursor ? { cursor } : (params as Record<string, string | string[] | undefined>),
          ...options,
        }),
      productsOf<A>,
    );
  }

  /**
   * Every product changed after `modifiedOn` (not included), oldest change first: how a copy of
   * the catalog is kept in sync. Keep the newest `modifiedOn` you have stored and pass it next
   * time; no change is missed, even one committing while you read (docs/api.md, "Keeping a copy
   * in sync"). Without `modifiedOn`, every product.
   */
  changedSince(
    modifiedOn: string | Date = EPOCH,
    options: CallOptions = {},
  ): PagedList<A['list'], A['product']> {
    const modifiedAfter = typeof modifiedOn === 'string' ? modifiedOn : modifiedOn.toISOString();
    return this.list({ modifiedAfter, modifiedBefore: OPEN_END }, options);
  }

  /** One product, or several in the order asked (more than 50: several requests of 50). */
  get(id: string, options?: CallOptions): Promise<A['product']>;
  get(ids: readonly string[], options?: CallOptions): Promise<A['product'][]>;
  async get(
    ids: string | readonly string[],
    options: CallOptions = {},
  ): Promise<A['product'] | A['product'][]> {
    const fetchBatch = async (batch: readonly string[]) =>
      productsOf<A>(
        await this.client.call<A['list']>({
          method: 'GET',
          path: `${this.basePath}/${batch.map(segment).join(',')}`,
          ...options,
        }),
      );
    if (typeof ids === 'string') {
      const [product] = await fetchBatch([ids]);
      return product!;
    }
    return batched(ids, GET_BATCH, fetchBatch);
  }

  create(body: A['create'], options: CallOptions = {}): Promise<A['product']> {
    return this.client.call<A['product']>({ method: 'POST', path: this.basePath, json: body, ...options });
  }

  /** Partial: a field left out is unchanged; `null` clears `seoOptions` (v2: or `seoData`). */
  update(id: string, body: A['update'], options: CallOptions = {}): Promise<A['product']> {
    return this.client.call<A['product']>({
      method: 'POST',
      path: `${this.basePath}/${segment(id)}`,
      json: body,
      ...options,
    });
  }

  /** Variants and images go with it. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `${this.basePath}/${segment(id)}`, ...options });
  }
}

/** A page's products (`{ products }` of a list page or a get by ids). */
function productsOf<A extends ProductApiTypes>(page: Pick<A['list'], 'products'>): A['product'][] {
  return page.products as A['product'][];
}
