import { randomBytes } from 'node:crypto';
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

/** A multipart/form-data body with one file part, as a browser or curl -F sends it. */
export function multipartFile(field: string, fileName: string, bytes: Buffer) {
  const boundary = `----emporium${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  return {
    payload: Buffer.concat([head, bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Creates a product through the API and returns the response body; fails the test on any error. */
export async function createProduct(site: Site, body: Record<string, unknown>) {
  const res = await site.call({ method: 'POST', url: '/1.1/commerce/products', payload: body });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}
