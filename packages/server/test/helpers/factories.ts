import type { Site } from './test-app.ts';

export function money(value: string, currency = 'USD') {
  return { currency, value };
}

export function variant(sku: string, overrides: Record<string, unknown> = {}) {
  return { sku, pricing: { basePrice: money('10.00') }, ...overrides };
}

export function physical(site: Site, overrides: Record<string, unknown> = {}) {
  return {
    type: 'PHYSICAL',
    storePageId: site.storePageId,
    name: 'Mug',
    variants: [variant(`SKU-${Math.random().toString(36).slice(2, 10)}`)],
    ...overrides,
  };
}

export function digital(site: Site, overrides: Record<string, unknown> = {}) {
  return {
    type: 'DIGITAL',
    storePageId: site.storePageId,
    name: 'E-book',
    pricing: { basePrice: money('5.00') },
    ...overrides,
  };
}

/** Creates a product through the API and returns the response body; fails the test on any error. */
export async function createProduct(site: Site, body: Record<string, unknown>) {
  const res = await site.call({ method: 'POST', url: '/1.1/commerce/products', payload: body });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}
