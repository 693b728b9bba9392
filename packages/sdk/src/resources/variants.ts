import { segment, type Caller } from '../client.js';
import type { CallOptions } from '../request.js';
import type { ProductVariant, VariantCreate, VariantUpdate } from '../types.js';

const path = (productId: string, variantId?: string) =>
  `/1.1/commerce/products/${segment(productId)}/variants${variantId === undefined ? '' : `/${segment(variantId)}`}`;

/** `/1.1/commerce/products/{productId}/variants` (PHYSICAL products; DIGITAL: 405). */
export class Variants {
  constructor(private readonly client: Caller) {}

  /** The product needs at least one variant attribute; SKUs are unique within the website. */
  create(productId: string, body: VariantCreate, options: CallOptions = {}): Promise<ProductVariant> {
    return this.client.call({ method: 'POST', path: path(productId), json: body, ...options });
  }

  /** `sku`, `pricing`, `attributes`, `measurements`; stock changes through inventory adjustments. */
  update(
    productId: string,
    variantId: string,
    body: VariantUpdate,
    options: CallOptions = {},
  ): Promise<ProductVariant> {
    return this.client.call({ method: 'POST', path: path(productId, variantId), json: body, ...options });
  }

  /** The last variant cannot be deleted (409 INSUFFICIENT_PRODUCT_VARIANTS). */
  async delete(productId: string, variantId: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: path(productId, variantId), ...options });
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
      path: `${path(productId, variantId)}/image`,
      json: { imageId },
      ...options,
    });
  }
}
