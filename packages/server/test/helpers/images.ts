import assert from 'node:assert/strict';
import sharp from 'sharp';
import { multipartFile } from './factories.ts';
import { BASE_URL, type Site, type TestContext } from './test-app.ts';

/** The images API's calls as an app makes them, and the image files as a browser fetches them. */

export const PRODUCTS = '/1.1/commerce/products';

/** A picture of one colour, to encode in any format. */
export const picture = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });

export const upload = (site: Site, productId: string, fileName: string, bytes: Buffer, field = 'file') =>
  site.call({
    method: 'POST',
    url: `${PRODUCTS}/${productId}/images`,
    ...multipartFile(field, fileName, bytes),
  });

export const status = (site: Site, productId: string, imageId: string) =>
  site.call({ method: 'GET', url: `${PRODUCTS}/${productId}/images/${imageId}/status` });

export const product = async (site: Site, id: string) => {
  const res = await site.call({ method: 'GET', url: `${PRODUCTS}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0];
};

/** Uploads, waits for the worker to finish, and returns the image id. */
export const processed = async (
  ctx: TestContext,
  site: Site,
  productId: string,
  fileName: string,
  bytes: Buffer,
) => {
  const res = await upload(site, productId, fileName, bytes);
  assert.equal(res.statusCode, 202, res.body);
  const { imageId } = res.json();
  await ctx.imageProcessed(imageId);
  return imageId as string;
};

/** An image's URL (as the API gives it, or its path) fetched from the app. */
export const serve = (ctx: TestContext, url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: url.replace(BASE_URL, ''), headers });
