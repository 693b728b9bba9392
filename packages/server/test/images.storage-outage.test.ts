import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { processImage } from '../src/catalog/images/image-jobs.ts';
import { FileImageStorage } from '../src/media/storage.ts';
import { createProduct, multipartFile, physical } from './helpers/factories.ts';
import { TestS3Server } from './helpers/s3-server.ts';
import { assertError } from './helpers/shape.ts';
import { storedImageIds, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * The S3 store goes away (its server stops: the port refuses connections) and comes back. The app
 * runs no image worker: the test calls the job itself, as a worker would.
 */
let s3: TestS3Server;
let ctx: TestContext;
let site: Site;
before(async () => {
  s3 = await TestS3Server.start();
  ctx = await testApp({ logLevel: 'silent', storage: 's3', s3, queue: true }); // the uploads' jobs stay queued
  site = await ctx.site();
});
after(async () => {
  await ctx.close();
  await s3.close();
});

const PRODUCTS = '/1.1/commerce/products';
const jpeg = () =>
  sharp({ create: { width: 320, height: 200, channels: 3, background: 'teal' } })
    .jpeg()
    .toBuffer();
const upload = async (productId: string) =>
  site.call({
    method: 'POST',
    url: `${PRODUCTS}/${productId}/images`,
    ...multipartFile('file', 'teal.jpg', await jpeg()),
  });
const uploaded = async (productId: string): Promise<string> => {
  const res = await upload(productId);
  assert.equal(res.statusCode, 202, res.body);
  return res.json().imageId;
};
const status = async (productId: string, imageId: string) =>
  (await site.call({ method: 'GET', url: `${PRODUCTS}/${productId}/images/${imageId}/status` })).json()
    .status;
/** The image job as a worker runs it. */
const work = (imageId: string) =>
  processImage(ctx.api, { imageId }, { workerId: 1, jobId: randomUUID(), attempt: 0 });
const serve = (imageId: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: `/images/${imageId}`, headers });
const readyz = () => ctx.app.inject({ method: 'GET', url: '/readyz' });
const product = async (id: string) =>
  (await site.call({ method: 'GET', url: `${PRODUCTS}/${id}` })).json().products[0];

describe('while the S3 store is down', () => {
  test('uploads, image files and /readyz are 503s, nothing is stored, and all recover with the store', async () => {
    const p = await createProduct(site, physical(site));
    const shown = await uploaded(p.id);
    await work(shown);
    const before = await product(p.id);
    const served = await serve(shown);
    assert.equal(served.statusCode, 200);
    assert.equal((await readyz()).statusCode, 200);

    await s3.stop();
    try {
      assertError(await upload(p.id), 503, 'SERVICE_UNAVAILABLE', null, /image storage/);
      assert.deepEqual(await product(p.id), before, 'the product is unchanged');
      assertError(await serve(shown), 503, 'SERVICE_UNAVAILABLE', null, /image storage/);
      const cached = await serve(shown, { 'if-none-match': String(served.headers.etag) });
      assert.equal(cached.statusCode, 304, 'a cached copy is still confirmed without the store');
      const ready = await readyz();
      assertError(ready, 503, 'SERVICE_UNAVAILABLE', null, /^not ready: image storage is unreachable$/);
    } finally {
      await s3.resume();
    }

    assert.equal((await readyz()).statusCode, 200);
    const again = await serve(shown);
    assert.equal(again.statusCode, 200);
    assert.ok(again.rawPayload.equals(served.rawPayload));
    assert.deepEqual(await storedImageIds(ctx.storage), [shown], 'the refused upload left no object');
    assert.equal((await upload(p.id)).statusCode, 202);
  });

  test('an image job fails for a retry and leaves the image QUEUED; once the store is back it ends READY', async () => {
    const p = await createProduct(site, physical(site));
    const imageId = await uploaded(p.id);
    await s3.stop();
    try {
      await assert.rejects(work(imageId), /image storage/);
      assert.equal(await status(p.id, imageId), 'QUEUED');
    } finally {
      await s3.resume();
    }
    await work(imageId);
    assert.equal(await status(p.id, imageId), 'READY');
    const small = await ctx.app.inject({ method: 'GET', url: `/images/${imageId}?format=300w` });
    assert.equal(small.statusCode, 200);
    assert.equal((await sharp(small.rawPayload).metadata()).width, 300);
  });
});

test('the folder storage fails its readiness check when its folder cannot be made', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-check-'));
  try {
    await new FileImageStorage(path.join(dir, 'images')).check();
    const file = path.join(dir, 'a-file');
    await fs.writeFile(file, '');
    await assert.rejects(new FileImageStorage(path.join(file, 'images')).check());
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
