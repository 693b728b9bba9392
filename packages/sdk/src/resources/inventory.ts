import { segment, type Caller } from '../client.js';
import { randomUuid } from '../encoding.js';
import { PagedList, batched } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type { InventoryAdjustment, InventoryItem, InventoryList } from '../types.js';

const PATH = '/1.0/commerce/inventory';

/** `/1.0/commerce/inventory` (scopes `website.inventory.read`, and `website.inventory` to adjust). */
export class Inventory {
  constructor(private readonly client: Caller) {}

  /** 50 variants a page in a stable order; await it for the first page, or `for await` over all. */
  list(options: CallOptions = {}): PagedList<InventoryList, InventoryItem> {
    return new PagedList(
      (cursor) =>
        this.client.call<InventoryList>({ method: 'GET', path: PATH, query: { cursor }, ...options }),
      (page) => page.inventory,
    );
  }

  /** One variant's stock, or several in the order asked (more than 50: several requests of 50). */
  get(variantId: string, options?: CallOptions): Promise<InventoryItem>;
  get(variantIds: readonly string[], options?: CallOptions): Promise<InventoryItem[]>;
  async get(
    ids: string | readonly string[],
    options: CallOptions = {},
  ): Promise<InventoryItem | InventoryItem[]> {
    const fetchBatch = async (batch: readonly string[]) =>
      (
        await this.client.call<InventoryList>({
          method: 'GET',
          path: `${PATH}/${batch.map(segment).join(',')}`,
          ...options,
        })
      ).inventory;
    if (typeof ids === 'string') return (await fetchBatch([ids]))[0]!;
    return batched(ids, 50, fetchBatch);
  }

  /**
   * Applies every operation or none (at most 50). The Idempotency-Key is `idempotencyKey`, or a
   * new UUID; the same key goes with every retry of this call, so a lost answer can never apply
   * the adjustment twice. Resolves with the key used.
   */
  async adjust(
    body: InventoryAdjustment,
    options: CallOptions & { idempotencyKey?: string } = {},
  ): Promise<{ idempotencyKey: string }> {
    const { idempotencyKey = randomUuid(), ...call } = options;
    await this.client.call({
      method: 'POST',
      path: `${PATH}/adjustments`,
      json: body,
      headers: { 'idempotency-key': idempotencyKey },
      ...call,
    });
    return { idempotencyKey };
  }
}
