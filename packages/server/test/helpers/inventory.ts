import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { createProduct, physical, variant } from './factories.ts';
import { assertError } from './shape.ts';
import type { Site, TestContext } from './test-app.ts';

export const INVENTORY = '/1.0/commerce/inventory';

export type Stock = number | 'unlimited';

export interface Item {
  variantId: string;
  sku: string;
  descriptor: string;
  isUnlimited: boolean;
  quantity: number;
}

let counter = 0;
export const sku = () => `INV-${++counter}-${Math.random().toString(36).slice(2, 6)}`;
export const newKey = () => `key-${++counter}-${Math.random().toString(36).slice(2, 10)}`;

/** Inventory calls through the API, by default with the site `main()` gives. */
export function inventoryCalls(main: () => Site) {
  /** A PHYSICAL product with one variant per stock given; returns the product and its variant ids. */
  async function stocked(stocks: Stock[], s: Site = main(), overrides: Record<string, unknown> = {}) {
    const product = await createProduct(
      s,
      physical(s, {
        variantAttributes: ['N'],
        variants: stocks.map((stock, i) =>
          variant(sku(), {
            attributes: { N: String(i) },
            stock:
              stock === 'unlimited'
                ? { quantity: 0, unlimited: true }
                : { quantity: stock, unlimited: false },
          }),
        ),
        ...overrides,
      }),
    );
    return { product, ids: product.variants.map((v: { id: string }) => v.id) as string[] };
  }

  const adjust = (body: unknown, key: string | null = newKey(), s: Site = main()) =>
    s.call({
      method: 'POST',
      url: `${INVENTORY}/adjustments`,
      headers: key === null ? {} : { 'idempotency-key': key },
      payload: body as object,
    });

  async function items(ids: string[], s: Site = main()): Promise<Item[]> {
    const res = await s.call({ method: 'GET', url: `${INVENTORY}/${ids.join(',')}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().inventory;
  }

  /** The stock of each variant, as the API shows it: a number, or 'unlimited'. */
  async function stocks(ids: string[], s: Site = main()): Promise<Stock[]> {
    return (await items(ids, s)).map((i) => (i.isUnlimited ? 'unlimited' : i.quantity));
  }

  async function product(id: string, s: Site = main()) {
    const res = await s.call({ method: 'GET', url: `/1.1/commerce/products/${id}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().products[0];
  }

  return { stocked, adjust, items, stocks, product };
}

/** A 204 with no body: the adjustment was applied, or replayed. */
export function applied(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 204, res.body);
  assert.equal(res.body, '');
}

export const invalid = (
  res: Parameters<typeof assertError>[0],
  message: RegExp,
  subtype = 'INVALID_ARGUMENT',
) => assertError(res, 400, 'INVALID_REQUEST_ERROR', subtype, message);

/** The site's calls made with another credential: another API key, or an app's access token. */
export function withCredential(ctx: TestContext, site: Site, credential: string): Site {
  return {
    ...site,
    call: (options) =>
      ctx.app.inject({
        ...options,
        headers: {
          ...(options.headers as Record<string, string>),
          authorization: `Bearer ${credential}`,
          'user-agent': 'emporium-tests/1.0',
        },
      }),
  };
}

export function countBy(values: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
