import { segment, type Caller } from '../client.js';
import { PagedList, batched } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type { Product, ProductCreate, ProductList, ProductListParams, ProductUpdate } from '../types.js';
import { Images } from './images.js';
import { Variants } from './variants.js';

const PATH = '/1.1/commerce/products';
/** The window of changedSince(): from the given time on (modifiedBefore is required with modifiedAfter). */
const EPOCH = '1970-01-01T00:00:00.000Z';
const OPEN_END = '9999-12-31T23:59:59.999Z';
/** spec, Limits: products per get request. */
export const GET_BATCH = 50;

/** `/1.1/commerce/products` */
export class Products {
  readonly images: Images;
  readonly variants: Variants;

  constructor(private readonly client: Caller) {
    this.images = new Images(client);
    this.variants = new Variants(client);
  }

  /**
   * A page of 50, oldest change first; await it for the first page, or `for await` over every
   * product. Filters: `query`, `type` (`'PHYSICAL'`, `['PHYSICAL', 'DIGITAL']`), and
   * `modifiedAfter` with `modifiedBefore`.
   */
  list(params: ProductListParams = {}, options: CallOptions = {}): PagedList<ProductList, Product> {
    return new PagedList(
      (cursor) =>
        this.client.call<ProductList>({
          method: 'GET',
          path: PATH,
          query: cursor ? { cursor } : (params as Record<string, string | string[] | undefined>),
          ...options,
        }),
      (page) => page.products,
    );
  }

  /**
   * Every product changed after `modifiedOn` (not included), oldest change first: how a copy of
   * the catalog is kept in sync. Keep the newest `modifiedOn` you have stored and pass it next
   * time; no change is missed, even one committing while you read (the README's "Keeping a copy
   * in sync"). Without `modifiedOn`, every product.
   */
  changedSince(
    modifiedOn: string | Date = EPOCH,
    options: CallOptions = {},
  ): PagedList<ProductList, Product> {
    const modifiedAfter = typeof modifiedOn === 'string' ? modifiedOn : modifiedOn.toISOString();
    return this.list({ modifiedAfter, modifiedBefore: OPEN_END }, options);
  }

  /** One product, or several in the order asked (more than 50: several requests of 50). */
  get(id: string, options?: CallOptions): Promise<Product>;
  get(ids: readonly string[], options?: CallOptions): Promise<Product[]>;
  async get(ids: string | readonly string[], options: CallOptions = {}): Promise<Product | Product[]> {
    const fetchBatch = async (batch: readonly string[]) =>
      (
        await this.client.call<ProductList>({
          method: 'GET',
          path: `${PATH}/${batch.map(segment).join(',')}`,
          ...options,
        })
      ).products;
    if (typeof ids === 'string') {
      const [product] = await fetchBatch([ids]);
      return product!;
    }
    return batched(ids, GET_BATCH, fetchBatch);
  }

  create(body: ProductCreate, options: CallOptions = {}): Promise<Product> {
    return this.client.call<Product>({ method: 'POST', path: PATH, json: body, ...options });
  }

  /** Partial: a field left out is unchanged; `null` clears `seoOptions`. */
  update(id: string, body: ProductUpdate, options: CallOptions = {}): Promise<Product> {
    return this.client.call<Product>({
      method: 'POST',
      path: `${PATH}/${segment(id)}`,
      json: body,
      ...options,
    });
  }

  /** Variants and images go with it. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: `${PATH}/${segment(id)}`, ...options });
  }
}
