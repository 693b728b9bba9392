/**
 * Lists (architecture habit 9): `list()` returns a promise of the first page that is also an
 * async iterable over every item of every page, following `pagination.nextPageCursor` (a cursor
 * carries the first request's filters, so it is sent alone: api-details 4). Nothing is fetched
 * until the list is awaited or iterated.
 */
import type { Pagination } from './types.js';

/** A page as the server sent it (`{ products, pagination }`, ...), plus `items`: the same array. */
export type Page<Body, Item> = Body & { readonly items: Item[] };

/** The next page's cursor from `pagination.nextPageCursor`, undefined on the last page. */
const nextCursor = (body: object) => {
  const pagination = (body as { pagination?: Pagination }).pagination;
  return pagination?.hasNextPage && pagination.nextPageCursor ? pagination.nextPageCursor : undefined;
};

export class PagedList<Body extends object, Item> implements Promise<Page<Body, Item>>, AsyncIterable<Item> {
  private first: Promise<Page<Body, Item>> | undefined;

  /**
   * `fetchPage(token)` fetches the first page (token undefined) or the page `nextOf` named after
   * the page fetched with `token`: a cursor by default; lists paged otherwise (discounts' offsets)
   * give their own `nextOf`.
   */
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Body>,
    private readonly itemsOf: (body: Body) => Item[],
    private readonly nextOf: (body: Body, token: string | undefined) => string | undefined = nextCursor,
  ) {}

  readonly [Symbol.toStringTag] = 'PagedList';

  private async load(cursor: string | undefined): Promise<Page<Body, Item>> {
    const body = await this.fetchPage(cursor);
    // Not enumerable: the page serializes as the server sent it.
    return Object.defineProperty(body, 'items', { value: this.itemsOf(body), enumerable: false }) as Page<
      Body,
      Item
    >;
  }

  private firstPage(): Promise<Page<Body, Item>> {
    return (this.first ??= this.load(undefined));
  }

  then<R1 = Page<Body, Item>, R2 = never>(
    onFulfilled?: ((page: Page<Body, Item>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<R = never>(
    onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null,
  ): Promise<Page<Body, Item> | R> {
    return this.firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Page<Body, Item>> {
    return this.firstPage().finally(onFinally);
  }

  /** Every page, the first one included. */
  async *pages(): AsyncGenerator<Page<Body, Item>, void, undefined> {
    let page = await this.firstPage();
    let token: string | undefined;
    yield page;
    for (;;) {
      token = this.nextOf(page, token);
      if (token === undefined) return;
      page = await this.load(token);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Every item of every page in one array (mind the memory on a large catalog). */
  async toArray(): Promise<Item[]> {
    const all: Item[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/** Splits `ids` into requests of at most `size`, run `concurrency` at a time; results in the order asked. */
export async function batched<T>(
  ids: readonly string[],
  size: number,
  fetchBatch: (batch: string[]) => Promise<T[]>,
  concurrency = 4,
): Promise<T[]> {
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += size) batches.push(ids.slice(i, i + size));
  const results: T[][] = new Array(batches.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < batches.length && !failed) {
      const index = next++;
      try {
        results[index] = await fetchBatch(batches[index]!);
      } catch (error) {
        failed = true; // start no other batch; the first error is the answer
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
  return results.flat();
}
