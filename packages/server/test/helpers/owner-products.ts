import assert from 'node:assert/strict';
import sharp from 'sharp';
import { TestBrowser } from './browser.ts';
import type { Site, TestContext } from './test-app.ts';
import { ownerEmailOf } from './owner-pages.ts';

/** What the owner product page tests share: a signed-in owner, the API's view, an image. */

export interface ApiVariant {
  id: string;
  sku: string;
  attributes: Record<string, string>;
  pricing: { basePrice: { value: string }; salePrice: { value: string }; onSale: boolean };
  stock: { quantity: number; unlimited: boolean };
}

/** The site's owner, signed in in a browser of its own. */
export async function ownerOf(ctx: TestContext, site: Site): Promise<TestBrowser> {
  const email = await ownerEmailOf(ctx, site);
  const browser = new TestBrowser(ctx.app);
  assert.equal((await browser.signIn(email)).statusCode, 303);
  return browser;
}

/** The product as the v2 API shows it. */
export async function apiProduct(site: Site, id: string) {
  const res = await site.call({ method: 'GET', url: `/v2/commerce/products/${id}` });
  return { status: res.statusCode, product: res.statusCode === 200 ? res.json().products[0] : undefined };
}

export const png = (width = 320, height = 200) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .png()
    .toBuffer();

/** Uploads a PNG from the product's page, as its owner; returns the new image's id. */
export async function uploadFromPage(ctx: TestContext, site: Site, productId: string, name: string) {
  const browser = await ownerOf(ctx, site);
  await browser.get(`/sites/${site.websiteId}/products/${productId}`);
  const res = await browser.postMultipart(
    `/sites/${site.websiteId}/products/${productId}/images`,
    { csrf: browser.csrf },
    { field: 'file', name, type: 'image/png', data: await png() },
  );
  assert.equal(res.statusCode, 303, res.body);
  const { product } = await apiProduct(site, productId);
  return String(product.images.at(-1).id);
}
