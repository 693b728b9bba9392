import { segment, type Caller } from '../client.js';
import type { CallOptions } from '../request.js';
import type { ProductApi11, ProductApiTypes } from '../types.js';

/**
 * `{products}/{productId}/variants` of 1.1 (PHYSICAL products) or v2 (PHYSICAL, SERVICE and
 * GIFT_CARD products, each variant with its type's fields): `A` is that version's types. A DIGITAL
 * product has none: 405.
 */
export class Variants<A extends ProductApiTypes = ProductApi11> {
  constructor(
    private readonly client: Caller,
    /** The products collection's path, e.g. `/1.1/commerce/products`. */
    private readonly basePath: string,
  ) {}

  private path(productId: string, variantId?: string): string {
    const variants = `${this.basePath}/${segment(productId)}/variants`;
    return variantId === undefined ? variants : `${variants}/${segment(variantId)}`;
  }

  /** PHYSICAL and SERVICE products need at least one variant attribute; SKUs are unique within the website. */
  create(productId: string, body: A['variantCreate'], options: CallOptions = {}): Promise<A['variant']> {
    return this.client.call({ method: 'POST', path: this.path(productId), json: body, ...options });
  }

  /**
   * `sku`, `pricing`, `attributes`, `measurements` (v2: `shippingMeasurements`, `gtin`, `mpn`);
   * stock changes through inventory adjustments.
   */
  update(
    productId: string,
    variantId: string,
    body: A['variantUpdate'],
    options: CallOptions = {},
  ): Promise<A['variant']> {
    return this.client.call({
      method: 'POST',
      path: this.path(productId, variantId),
      json: body,
      ...options,
    });
  }

  /** The last variant cannot be deleted (409 INSUFFICIENT_PRODUCT_VARIANTS). */
  async delete(productId: string, variantId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: this.path(productId, variantId), ...options });
  }

  /** Shows one of the product's images on the variant, or none with null. */
  async setImage(
    productId: string,
    variantId: string,
    imageId: string | null,
    options: CallOptions = {},
  ): Promise<void> {
    await this.client.call({
      method: 'POST',
      path: `${this.path(productId, variantId)}/image`,
      json: { imageId },
      ...options,
    });
  }
}
