import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { IMAGE_SWEEP, ORPHAN_MIN_AGE_MS, sweepOrphanImages } from '../src/catalog/images/image-sweep.ts';
import { MAX_IMAGES } from '../src/catalog/images/images.service.ts';
import { SWEEP_LOCKS } from '../src/db/one-at-a-time.ts';
import { Product, ProductList } from '../src/catalog/products.schemas.ts';
import { createProduct, multipartFile, physical, variant } from './helpers/factories.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import {
  BASE_URL,
  IMAGE_STORAGES,
  storedImageIds,
  testApp,
  type Site,
  type TestContext,
} from './helpers/test-app.ts';

let ctx: TestContext;
let site: Site;

const PRODUCTS = '/1.1/commerce/products';

const picture = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });

const upload = (productId: string, fileName: string, bytes: Buffer, s: Site = site, field = 'file') =>
  s.call({
    method: 'POST',
    url: `${PRODUCTS}/${productId}/images`,
    ...multipartFile(field, fileName, bytes),
  });
const status = (productId: string, imageId: string, s: Site = site) =>
  s.call({ method: 'GET', url: `${PRODUCTS}/${productId}/images/${imageId}/status` });
const product = async (id: string) => {
  const res = await site.call({ method: 'GET', url: `${PRODUCTS}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().products[0];
};
/** Uploads, waits for the worker to finish, and returns the image id. */
const processed = async (productId: string, fileName: string, bytes: Buffer) => {
  const res = await upload(productId, fileName, bytes);
  assert.equal(res.statusCode, 202, res.body);
  const { imageId } = res.json();
  await ctx.imageProcessed(imageId);
  return imageId as string;
};
const serve = (url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url: url.replace(BASE_URL, ''), headers });

for (const storage of IMAGE_STORAGES) {
  describe(`with ${storage} storage`, () => {
    before(async () => {
      ctx = await testApp({ logLevel: 'silent', imageWorkers: 1, storage });
      site = await ctx.site();
    });
    after(() => ctx.close());

    describe('upload and processing', () => {
      test('202 {imageId}, then READY with every width not wider than the original, in the product', async () => {
        const p = await createProduct(site, physical(site));
        const bytes = await picture(640, 480).jpeg().toBuffer();
        const res = await upload(p.id, 'C:\\photos\\Red Mug.jpg', bytes);
        assert.equal(res.statusCode, 202, res.body);
        assert.deepEqual(Object.keys(res.json()), ['imageId']);
        const { imageId } = res.json();
        await ctx.imageProcessed(imageId);
        assert.deepEqual((await status(p.id, imageId)).json(), { id: imageId, status: 'READY' });
        const after = await product(p.id);
        assertShape(Product, after);
        assert.ok(Date.parse(after.modifiedOn) > Date.parse(p.modifiedOn));
        assert.deepEqual(after.images, [
          {
            id: imageId,
            altText: 'Red Mug',
            orderIndex: 0,
            url: `${BASE_URL}/images/${imageId}`,
            originalSize: { width: 640, height: 480 },
            availableFormats: ['100w', '300w', '500w'],
          },
        ]);
      });

      test('the original and each width are served with their type, an ETag and a cache lifetime', async () => {
        const p = await createProduct(site, physical(site));
        const bytes = await picture(800, 400).jpeg().toBuffer();
        await processed(p.id, 'wide.jpg', bytes);
        const url = (await product(p.id)).images[0].url;
        const original = await serve(url);
        assert.equal(original.statusCode, 200);
        assert.equal(original.headers['content-type'], 'image/jpeg');
        assert.equal(original.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.ok(original.rawPayload.equals(bytes));
        const head = await ctx.app.inject({ method: 'HEAD', url: url.replace(BASE_URL, '') });
        assert.equal(head.statusCode, 200);
        assert.equal(head.headers['content-length'], String(bytes.length));
        assert.equal(head.headers.etag, original.headers.etag);
        assert.equal(head.rawPayload.length, 0);
        const small = await serve(`${url}?format=300w`);
        assert.equal(small.statusCode, 200);
        const meta = await sharp(small.rawPayload).metadata();
        assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 300, 150]);
        const again = await serve(`${url}?format=300w`, { 'if-none-match': String(small.headers.etag) });
        assert.equal(again.statusCode, 304);
        assert.notEqual(small.headers.etag, original.headers.etag);
        assertError(await serve(`${url}?format=1000w`), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
        assertError(
          await serve(`${url}?format=../original`),
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
        assertError(
          await serve(`/images/${'0'.repeat(24)}`),
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
      });

      test('PNG, GIF and WebP keep their format', async () => {
        const p = await createProduct(site, physical(site));
        for (const [format, bytes] of [
          ['png', await picture(320, 200).png().toBuffer()],
          ['gif', await picture(320, 200).gif().toBuffer()],
          ['webp', await picture(320, 200).webp().toBuffer()],
        ] as const) {
          const imageId = await processed(p.id, `picture.${format}`, bytes);
          const res = await serve(`/images/${imageId}?format=300w`);
          assert.equal(res.statusCode, 200, `${format}: ${res.body}`);
          assert.equal(res.headers['content-type'], `image/${format}`);
          assert.equal((await sharp(res.rawPayload).metadata()).format, format);
        }
      });

      test('an original larger than one part of an upload (5 MiB) is stored and served whole', async () => {
        const p = await createProduct(site, physical(site));
        // Noise hardly compresses: about 6 MB of PNG.
        const [width, height] = [1600, 1250];
        const bytes = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
          .png({ compressionLevel: 0 })
          .toBuffer();
        assert.ok(bytes.length > 5 * 1024 * 1024);
        const imageId = await processed(p.id, 'noise.png', bytes);
        assert.equal((await status(p.id, imageId)).json().status, 'READY');
        const original = await serve(`/images/${imageId}`);
        assert.equal(original.statusCode, 200);
        assert.equal(Number(original.headers['content-length']), bytes.length);
        assert.ok(original.rawPayload.equals(bytes));
      });

      test('a WebP larger than the first bytes an upload keeps is taken, sized from the stored file', async () => {
        const p = await createProduct(site, physical(site));
        const [width, height] = [900, 700];
        const bytes = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
          .webp({ quality: 100 })
          .toBuffer();
        assert.ok(bytes.length > 256 * 1024);
        // Refused as unreadable if sized from its first bytes only (a WebP's header needs it whole).
        const imageId = await processed(p.id, 'noise.webp', bytes);
        assert.equal((await status(p.id, imageId)).json().status, 'READY');
        assert.deepEqual((await product(p.id)).images[0].originalSize, { width, height });
      });

      test('the EXIF orientation is applied and metadata is stripped', async () => {
        const p = await createProduct(site, physical(site));
        // Stored 400x200, shown rotated a quarter turn: 200x400.
        const bytes = await picture(400, 200).withMetadata({ orientation: 6 }).jpeg().toBuffer();
        const imageId = await processed(p.id, 'rotated.jpg', bytes);
        const image = (await product(p.id)).images[0];
        assert.deepEqual(image.originalSize, { width: 200, height: 400 });
        const meta = await sharp((await serve(`/images/${imageId}?format=100w`)).rawPayload).metadata();
        assert.deepEqual(
          [meta.width, meta.height, meta.orientation, meta.exif],
          [100, 200, undefined, undefined],
        );
      });

      test('a file that only looks like a JPEG ends in ERROR', async () => {
        const p = await createProduct(site, physical(site));
        const noise = randomBytes(300 * 300 * 3);
        const whole = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } })
          .jpeg()
          .toBuffer();
        // The header intact, the compressed data after it replaced by noise and cut short.
        const broken = Buffer.concat([whole.subarray(0, 1000), randomBytes(5000)]);
        const res = await upload(p.id, 'broken.jpg', broken);
        if (res.statusCode === 400) return; // refused from the header alone: also right
        assert.equal(res.statusCode, 202, res.body);
        const { imageId } = res.json();
        await ctx.imageProcessed(imageId);
        assert.equal((await status(p.id, imageId)).json().status, 'ERROR');
      });
    });

    describe('refused uploads change nothing', () => {
      /** The images with files in storage, before the test's upload. */
      let stored: string[];
      const storedImages = () => storedImageIds(ctx.storage);
      beforeEach(async () => {
        stored = await storedImages();
      });
      const unchanged = async (productId: string, before: { modifiedOn: string; images: unknown[] }) => {
        const now = await product(productId);
        assert.equal(now.modifiedOn, before.modifiedOn);
        assert.deepEqual(now.images, before.images);
        assert.deepEqual(await storedImages(), stored, 'no file was left in storage');
      };

      test('not an image: 400, whatever its name says', async () => {
        const p = await createProduct(site, physical(site));
        assertError(
          await upload(p.id, 'photo.jpg', Buffer.from('<html>not an image</html>')),
          400,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
          /not a JPEG, PNG, GIF or WebP/,
        );
        await unchanged(p.id, p);
      });

      test('a small file declaring over 60 megapixels (a decompression bomb): 400 without decoding it', async () => {
        const p = await createProduct(site, physical(site));
        const png = await picture(1, 1).png().toBuffer();
        // Rewrite the IHDR chunk to declare 20000x20000 (400 megapixels), with a valid CRC.
        const ihdr = Buffer.from(png.subarray(12, 29));
        ihdr.writeUInt32BE(20_000, 4);
        ihdr.writeUInt32BE(20_000, 8); // 400 megapixels
        const crc = Buffer.alloc(4);
        crc.writeUInt32BE(zlib.crc32(ihdr) >>> 0);
        const bomb = Buffer.concat([png.subarray(0, 12), ihdr, crc, png.subarray(33)]);
        const rss = process.memoryUsage().rss;
        assertError(
          await upload(p.id, 'bomb.png', bomb),
          400,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
          /megapixels/,
        );
        assert.ok(process.memoryUsage().rss - rss < 100 * 1024 * 1024, 'the image was not decoded');
        await unchanged(p.id, p);
      });

      test('over 20 MB: 413', async () => {
        const p = await createProduct(site, physical(site));
        const big = Buffer.concat([await picture(10, 10).jpeg().toBuffer(), randomBytes(20 * 1024 * 1024)]);
        assertError(await upload(p.id, 'huge.jpg', big), 413, 'INVALID_REQUEST_ERROR', null, /larger/);
        await unchanged(p.id, p);
      });

      test('not multipart: 400 INVALID_CONTENT_TYPE; no part named file: 400', async () => {
        const p = await createProduct(site, physical(site));
        const url = `${PRODUCTS}/${p.id}/images`;
        assertError(
          await site.call({ method: 'POST', url, payload: { file: 'x' } }),
          400,
          'INVALID_REQUEST_ERROR',
          'INVALID_CONTENT_TYPE',
        );
        assertError(
          await site.call({
            method: 'POST',
            url,
            payload: 'raw bytes',
            headers: { 'content-type': 'image/jpeg' },
          }),
          400,
          'INVALID_REQUEST_ERROR',
          'INVALID_CONTENT_TYPE',
        );
        const jpeg = await picture(10, 10).jpeg().toBuffer();
        assertError(
          await upload(p.id, 'a.jpg', jpeg, site, 'image'),
          400,
          'INVALID_REQUEST_ERROR',
          'MISSING_ARGUMENT',
        );
        await unchanged(p.id, p);
      });

      test(`at most ${MAX_IMAGES} images a product: 409 IMAGE_LIMIT_REACHED`, async () => {
        const p = await createProduct(site, physical(site));
        await ctx.db
          .insertInto('images')
          .values(
            Array.from({ length: MAX_IMAGES }, (_, i) => ({
              id: randomBytes(12).toString('hex'),
              product_id: p.id,
              website_id: site.websiteId,
              position: i,
              alt_text: `image ${i}`,
              file_name: `image-${i}.jpg`,
              format: 'jpeg' as const,
              status: 'READY' as const,
              width: 10,
              height: 10,
              widths: [],
              created_at: new Date(),
            })),
          )
          .execute();
        const jpeg = await picture(10, 10).jpeg().toBuffer();
        assertError(await upload(p.id, 'one-more.jpg', jpeg), 409, 'CONFLICT', 'IMAGE_LIMIT_REACHED');
      });
    });

    describe('images across websites', () => {
      test("another website's product or image is a 404, and nothing is stored", async () => {
        const p = await createProduct(site, physical(site));
        const imageId = await processed(p.id, 'mine.jpg', await picture(120, 120).jpeg().toBuffer());
        const other = await ctx.site();
        const jpeg = await picture(10, 10).jpeg().toBuffer();
        assertError(
          await upload(p.id, 'theirs.jpg', jpeg, other),
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
        assertError(await status(p.id, imageId, other), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
        assert.equal((await product(p.id)).images.length, 1);
      });
    });

    describe('alt text, order and delete', () => {
      const call = (method: 'POST' | 'DELETE', url: string, payload?: object, s: Site = site) =>
        s.call({ method, url: `${PRODUCTS}${url}`, ...(payload && { payload }) });
      const ids = async (productId: string) =>
        (await product(productId)).images.map((i: { id: string; orderIndex: number }, index: number) => {
          assert.equal(i.orderIndex, index, 'orderIndex is dense');
          return i.id;
        });
      /** A product with three processed images a, b, c, in that order. */
      const threeImages = async () => {
        const p = await createProduct(site, physical(site));
        const jpeg = await picture(120, 120).jpeg().toBuffer();
        const [a, b, c] = [
          await processed(p.id, 'a.jpg', jpeg),
          await processed(p.id, 'b.jpg', jpeg),
          await processed(p.id, 'c.jpg', jpeg),
        ];
        return { p, a: a!, b: b!, c: c! };
      };

      test('alt text: plain or wrapped, at most 1000 characters; 200 with the image', async () => {
        const { p, a } = await threeImages();
        const res = await call('POST', `/${p.id}/images/${a}`, { altText: 'A red mug' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().altText, 'A red mug');
        assert.equal(res.json().id, a);
        const wrapped = await call('POST', `/${p.id}/images/${a}`, {
          altText: { present: true, value: 'Mug' },
        });
        assert.equal(wrapped.json().altText, 'Mug');
        assertError(
          await call('POST', `/${p.id}/images/${a}`, { altText: 'x'.repeat(1001) }),
          400,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
        assert.equal((await product(p.id)).images[0].altText, 'Mug');
      });

      test('order: after another image, or first with null; an image of another product is a 400', async () => {
        const { p, a, b, c } = await threeImages();
        assert.equal((await call('POST', `/${p.id}/images/${a}/order`, { afterImageId: c })).statusCode, 204);
        assert.deepEqual(await ids(p.id), [b, c, a]);
        assert.equal(
          (await call('POST', `/${p.id}/images/${c}/order`, { afterImageId: null })).statusCode,
          204,
        );
        assert.deepEqual(await ids(p.id), [c, b, a]);
        const other = await threeImages();
        assertError(
          await call('POST', `/${p.id}/images/${a}/order`, { afterImageId: other.a }),
          400,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
          /not an image of this product/,
        );
        assert.deepEqual(await ids(p.id), [c, b, a]);
      });

      test('delete: 204, the order closes up, variants showing it show none, its files are gone', async () => {
        const { p, a, b, c } = await threeImages();
        const variantId = p.variants[0].id;
        const show = await call('POST', `/${p.id}/variants/${variantId}/image`, { imageId: b });
        assert.equal(show.statusCode, 204, show.body);
        assert.equal((await product(p.id)).variants[0].image.id, b);
        assert.equal((await call('DELETE', `/${p.id}/images/${b}`)).statusCode, 204);
        assert.deepEqual(await ids(p.id), [a, c]);
        assert.equal((await product(p.id)).variants[0].image, null);
        assert.equal((await serve(`/images/${b}`)).statusCode, 404);
        assertError(
          await call('DELETE', `/${p.id}/images/${b}`),
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
      });

      test('a variant shows only an image of its own product; null removes it', async () => {
        const { p, a } = await threeImages();
        const other = await threeImages();
        const url = `/${p.id}/variants/${p.variants[0].id}/image`;
        assertError(
          await call('POST', url, { imageId: other.a }),
          400,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
          /not an image of this product/,
        );
        assert.equal((await call('POST', url, { imageId: a })).statusCode, 204);
        const variant = (await product(p.id)).variants[0];
        assert.deepEqual(variant.image, (await product(p.id)).images[0]);
        assert.equal((await call('POST', url, { imageId: null })).statusCode, 204);
        assert.equal((await product(p.id)).variants[0].image, null);
      });

      test("deleting a product removes its images' files", async () => {
        const { p, a } = await threeImages();
        assert.equal((await serve(`/images/${a}`)).statusCode, 200);
        assert.equal((await call('DELETE', `/${p.id}`)).statusCode, 204);
        assert.equal((await serve(`/images/${a}`)).statusCode, 404);
      });

      test('another website reaches none of these routes: 404, nothing changed', async () => {
        const { p, a } = await threeImages();
        const other = await ctx.site();
        const before = await product(p.id);
        for (const res of [
          await call('POST', `/${p.id}/images/${a}`, { altText: 'theirs' }, other),
          await call('POST', `/${p.id}/images/${a}/order`, { afterImageId: null }, other),
          await call('DELETE', `/${p.id}/images/${a}`, undefined, other),
          await call('POST', `/${p.id}/variants/${p.variants[0].id}/image`, { imageId: a }, other),
        ]) {
          assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
        }
        assert.deepEqual(await product(p.id), before);
      });

      test('concurrent uploads to one product keep a dense order with no gaps or repeats', async () => {
        const p = await createProduct(site, physical(site));
        const jpeg = await picture(50, 50).jpeg().toBuffer();
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => upload(p.id, `c${i}.jpg`, jpeg)),
        );
        assert.deepEqual(
          results.map((r) => r.statusCode),
          Array(8).fill(202),
        );
        const images = (await product(p.id)).images;
        assert.deepEqual(
          images.map((i: { orderIndex: number }) => i.orderIndex),
          [0, 1, 2, 3, 4, 5, 6, 7],
        );
        await Promise.all(results.map((r) => ctx.imageProcessed(r.json().imageId)));
      });
    });

    describe('the sweep of orphaned files', () => {
      test('removes files no image owns once they are an hour old, and nothing else', async () => {
        const p = await createProduct(site, physical(site));
        const owned = await processed(p.id, 'kept.jpg', await picture(120, 120).jpeg().toBuffer());
        const orphan = randomBytes(12).toString('hex');
        await ctx.storage.put(orphan, 'original', Buffer.from('left by a crash'));
        await ctx.storage.put(orphan, '100w', Buffer.from('and its width'));
        // The files' times are the storage's own (a folder's, an object's): the sweep's clock is
        // moved past them instead.
        const sweepAfter = (ms: number) =>
          sweepOrphanImages({
            db: ctx.db,
            pool: ctx.api.pool,
            storage: ctx.storage,
            clock: { now: () => new Date(Date.now() + ms) },
          });
        assert.equal(await sweepAfter(ORPHAN_MIN_AGE_MS - 60_000), 0, 'it may be an upload in flight');
        const young = await ctx.storage.open(orphan, 'original');
        assert.ok(young);
        young.stream.destroy();
        assert.equal(await sweepAfter(ORPHAN_MIN_AGE_MS + 60_000), 1);
        assert.equal(await ctx.storage.open(orphan, 'original'), undefined);
        assert.equal(await ctx.storage.open(orphan, '100w'), undefined);
        assert.equal((await serve(`/images/${owned}`)).statusCode, 200);
      });

      test('one process sweeps at a time: while another holds the sweep, this one leaves it', async () => {
        const orphan = randomBytes(12).toString('hex');
        await ctx.storage.put(orphan, 'original', Buffer.from('left by a crash'));
        const sweep = () =>
          sweepOrphanImages({
            db: ctx.db,
            pool: ctx.api.pool,
            storage: ctx.storage,
            clock: { now: () => new Date(Date.now() + ORPHAN_MIN_AGE_MS + 60_000) },
          });
        const other = await ctx.api.pool.connect();
        try {
          await other.query('SELECT pg_advisory_lock($1, $2)', [SWEEP_LOCKS, IMAGE_SWEEP]);
          assert.equal(await sweep(), undefined);
          assert.ok((await storedImageIds(ctx.storage)).includes(orphan), 'left to the other process');
          await other.query('SELECT pg_advisory_unlock($1, $2)', [SWEEP_LOCKS, IMAGE_SWEEP]);
        } finally {
          other.release();
        }
        assert.ok((await sweep())! >= 1);
        assert.ok(!(await storedImageIds(ctx.storage)).includes(orphan));
      });
    });

    test('a list page with images and variants has the documented shape, field by field', async () => {
      const p = await createProduct(
        site,
        physical(site, {
          variantAttributes: ['Size'],
          variants: [
            variant(`LIST-S-${Date.now()}`, { attributes: { Size: 'S' } }),
            variant(`LIST-M-${Date.now()}`, { attributes: { Size: 'M' } }),
          ],
        }),
      );
      const imageId = await processed(p.id, 'listed.png', await picture(200, 100).png().toBuffer());
      const show = await site.call({
        method: 'POST',
        url: `${PRODUCTS}/${p.id}/variants/${p.variants[1].id}/image`,
        payload: { imageId },
      });
      assert.equal(show.statusCode, 204, show.body);
      const res = await site.call({ method: 'GET', url: PRODUCTS });
      assert.equal(res.statusCode, 200);
      assertShape(ProductList, res.json());
      const listed = res.json().products.find((x: { id: string }) => x.id === p.id);
      const image = {
        id: imageId,
        altText: 'listed',
        orderIndex: 0,
        url: `${BASE_URL}/images/${imageId}`,
        originalSize: { width: 200, height: 100 },
        availableFormats: ['100w'],
      };
      assert.deepEqual(listed.images, [image]);
      assert.equal(listed.variants[0].image, null);
      assert.deepEqual(listed.variants[1].image, image);
      assert.deepEqual(Object.keys(listed).sort(), Object.keys(Product.properties).sort());
    });
  });
}
