import assert from 'node:assert/strict';
import { money } from './factories.ts';
import { assertError } from './shape.ts';
import type { Site } from './test-app.ts';

/** Products v2 through the API, for the products-v2.*.test.ts files. */

export const V2 = '/v2/commerce/products';
export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let skus = 0;
export const sku = (prefix: string) => `${prefix}-${++skus}`;

export const COMMON = [
  'id',
  'type',
  'storePageId',
  'name',
  'description',
  'url',
  'urlSlug',
  'tags',
  'isVisible',
];
export const DATES = ['seoOptions', 'createdOn', 'modifiedOn'];
/** The fields of each type, in the order they are sent (2.5.1; open question 8). */
export const PRODUCT_KEYS = {
  PHYSICAL: [...COMMON, 'variantAttributes', 'variants', 'images', ...DATES],
  SERVICE: [...COMMON, 'variantAttributes', 'variants', 'images', ...DATES],
  GIFT_CARD: [...COMMON, 'variants', 'images', ...DATES],
  DIGITAL: [...COMMON, 'images', 'pricing', 'digitalGood', ...DATES],
};
export const VARIANT_KEYS = {
  PHYSICAL: ['id', 'sku', 'pricing', 'stock', 'attributes', 'shippingMeasurements', 'image', 'gtin', 'mpn'],
  SERVICE: ['id', 'sku', 'pricing', 'stock', 'attributes', 'image'],
  GIFT_CARD: ['id', 'sku', 'pricing', 'image'],
};

/** Products v2 calls, bodies and reads, with the site `main()` gives. */
export function productsV2Calls(main: () => Site) {
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    main().call({ method, url, ...(payload !== undefined && { payload: payload as object }) });
  const invalid = (res: Awaited<ReturnType<typeof call>>, message: RegExp, subtype = 'INVALID_ARGUMENT') =>
    assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

  /** Bodies of v2 creation, one per creatable type, as 2.5.4 lists their fields. */
  const bodies = {
    PHYSICAL: (overrides: Json = {}) => ({
      type: 'PHYSICAL',
      storePageId: main().storePageId,
      name: 'Linen Shirt',
      variantAttributes: ['Size'],
      variants: [
        {
          sku: sku('SHIRT'),
          pricing: { basePrice: money('40.00'), salePrice: money('30.00'), onSale: true },
          stock: { quantity: 3, unlimited: false },
          attributes: { Size: 'S' },
          shippingMeasurements: { weight: { unit: 'POUND', value: 1.5 } },
          gtin: '0123-4567-8901-28',
          mpn: 'MPN-1234',
        },
      ],
      ...overrides,
    }),
    SERVICE: (overrides: Json = {}) => ({
      type: 'SERVICE',
      storePageId: main().storePageId,
      name: 'Tailoring',
      variantAttributes: ['Length'],
      variants: [
        { sku: sku('TAILOR'), pricing: { basePrice: money('25.00') }, attributes: { Length: '30 min' } },
        {
          sku: sku('TAILOR'),
          pricing: { basePrice: money('45.00') },
          stock: { unlimited: true },
          attributes: { Length: '60 min' },
        },
      ],
      ...overrides,
    }),
    GIFT_CARD: (overrides: Json = {}) => ({
      type: 'GIFT_CARD',
      storePageId: main().storePageId,
      name: 'Gift Card',
      variants: [
        { sku: sku('GIFT'), pricing: { basePrice: money('25.00') } },
        { sku: sku('GIFT'), pricing: { basePrice: money('50.00') } },
      ],
      ...overrides,
    }),
  };

  async function created(body: Json): Promise<Json> {
    const res = await call('POST', V2, body);
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  const get = async (id: string, version = 'v2') => {
    const res = await call('GET', `/${version}/commerce/products/${id}`);
    return res.statusCode === 200 ? (res.json().products[0] as Json) : undefined;
  };

  return { call, invalid, bodies, created, get };
}
