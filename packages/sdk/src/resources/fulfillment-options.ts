import type { Caller } from '../client.js';
import type { CallOptions } from '../request.js';
import type { FulfillmentOption, FulfillmentOptionList } from '../types.js';

/** `/v1/fulfillments/fulfillment-options` (scope `website.discounts.read`): what FREE_SHIPPING discounts name. */
export class FulfillmentOptions {
  constructor(private readonly client: Caller) {}

  async list(options: CallOptions = {}): Promise<FulfillmentOption[]> {
    const body = await this.client.call<FulfillmentOptionList>({
      method: 'GET',
      path: '/v1/fulfillments/fulfillment-options',
      ...options,
    });
    return body.fulfillmentOptions;
  }
}
