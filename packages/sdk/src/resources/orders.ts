import { segment, type Caller } from '../client.js';
import { randomUuid } from '../encoding.js';
import { PagedList } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type {
  CreatedOrder,
  Order,
  OrderCreate,
  OrderFulfillment,
  OrderList,
  OrderListParams,
} from '../types.js';

const PATH = '/1.0/commerce/orders';
const one = (id: string) => `${PATH}/${segment(id)}`;

/** `/1.0/commerce/orders` (scopes `website.orders.read`, and `website.orders` to import and fulfill). */
export class Orders {
  constructor(private readonly client: Caller) {}

  /**
   * A page of 50, newest change first; await it for the first page (`{ result, pagination }`), or
   * `for await` over every order. Filters: `modifiedAfter` with `modifiedBefore`,
   * `fulfillmentStatus`, `customerId`, and `paymentStates` (a list; the server's default leaves out
   * PENDING, FAILED and the other unsettled states).
   */
  list(params: OrderListParams = {}, options: CallOptions = {}): PagedList<OrderList, Order> {
    return new PagedList(
      (cursor) =>
        this.client.call<OrderList>({
          method: 'GET',
          path: PATH,
          query: cursor ? { cursor } : params,
          ...options,
        }),
      (page) => page.result,
    );
  }

  /** The order (24 hex characters; another website's is a NotFoundError too). */
  get(id: string, options: CallOptions = {}): Promise<Order> {
    return this.client.call<Order>({ method: 'GET', path: one(id), ...options });
  }

  /**
   * Imports an order placed on another channel. The Idempotency-Key is `idempotencyKey`, or a new
   * UUID; the same key goes with every retry of this call, so a lost answer can never create the
   * order twice. The created order echoes the key as `idempotencyKey`: sending the same body with
   * it again within 48 hours answers with that same order.
   */
  async create(
    body: OrderCreate,
    options: CallOptions & { idempotencyKey?: string } = {},
  ): Promise<CreatedOrder> {
    const { idempotencyKey = randomUuid(), ...call } = options;
    return this.client.call<CreatedOrder>({
      method: 'POST',
      path: PATH,
      json: body,
      headers: { 'idempotency-key': idempotencyKey },
      ...call,
    });
  }

  /**
   * Adds the shipments and marks the order FULFILLED. Not retried after a network error or a 5xx:
   * the endpoint takes no Idempotency-Key, so a second attempt could add the shipments twice.
   */
  async fulfill(id: string, body: OrderFulfillment = {}, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'POST', path: `${one(id)}/fulfillments`, json: body, ...options });
  }
}
