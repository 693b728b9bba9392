import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { MAX_IMAGES } from '../src/catalog/images/images.service.ts';
import { Product } from '../src/catalog/products.schemas.ts';
import { createProduct, physical } from './helpers/factories.ts';
import { picture, processed, product, PRODUCTS, serve, status, upload } from './helpers/images.ts';
import { assertError, assertShape } from './helpers/shape.ts';
import {
  BASE_URL,
  IMAGE_STORAGES,
  storedImageIds,
  testApp,
  type Site,
  type TestContext,
} from './helpers/test-app.ts';

/**
 * A product's images as they come in: the upload, the worker's widths and formats, the files as
 * served; the uploads refused, which leave nothing behind; and another website's product.
 */

let ctx: TestContext;
let site: Site;

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
        const res = await upload(site, p.id, 'C:\\photos\\Red Mug.jpg', bytes);
        assert.equal(res.statusCode, 202, res.body);
        assert.deepEqual(Object.keys(res.json()), ['imageId']);
        const { imageId } = res.json();
        await ctx.imageProcessed(imageId);
        assert.deepEqual((await status(site, p.id, imageId)).json(), { id: imageId, status: 'READY' });
        const after = await product(site, p.id);
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
        await processed(ctx, site, p.id, 'wide.jpg', bytes);
        const url = (await product(site, p.id)).images[0].url;
        const original = await serve(ctx, url);
        assert.equal(original.statusCode, 200);
        assert.equal(original.headers['content-type'], 'image/jpeg');
        assert.equal(original.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.ok(original.rawPayload.equals(bytes));
        const head = await ctx.app.inject({ method: 'HEAD', url: url.replace(BASE_URL, '') });
        assert.equal(head.statusCode, 200);
        assert.equal(head.headers['content-length'], String(bytes.length));
        assert.equal(head.headers.etag, original.headers.etag);
        assert.equal(head.rawPayload.length, 0);
        const small = await serve(ctx, `${url}?format=300w`);
        assert.equal(small.statusCode, 200);
        const meta = await sharp(small.rawPayload).metadata();
        assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 300, 150]);
        const again = await serve(ctx, `${url}?format=300w`, { 'if-none-match': String(small.headers.etag) });
        assert.equal(again.statusCode, 304);
        assert.notEqual(small.headers.etag, original.headers.etag);
        assertError(
          await serve(ctx, `${url}?format=1000w`),
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
        assertError(
          await serve(ctx, `${url}?format=../original`),
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
        assertError(
          await serve(ctx, `/images/${'0'.repeat(24)}`),
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
          const imageId = await processed(ctx, site, p.id, `picture.${format}`, bytes);
          const res = await serve(ctx, `/images/${imageId}?format=300w`);
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
        const imageId = await processed(ctx, site, p.id, 'noise.png', bytes);
        assert.equal((await status(site, p.id, imageId)).json().status, 'READY');
        const original = await serve(ctx, `/images/${imageId}`);
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
        const imageId = await processed(ctx, site, p.id, 'noise.webp', bytes);
        assert.equal((await status(site, p.id, imageId)).json().status, 'READY');
        assert.deepEqual((await product(site, p.id)).images[0].originalSize, { width, height });
      });

      test('the EXIF orientation is applied and metadata is stripped', async () => {
        const p = await createProduct(site, physical(site));
        // Stored 400x200, shown rotated a quarter turn: 200x400.
        const bytes = await picture(400, 200).withMetadata({ orientation: 6 }).jpeg().toBuffer();
        const imageId = await processed(ctx, site, p.id, 'rotated.jpg', bytes);
        const image = (await product(site, p.id)).images[0];
        assert.deepEqual(image.originalSize, { width: 200, height: 400 });
        const meta = await sharp((await serve(ctx, `/images/${imageId}?format=100w`)).rawPayload).metadata();
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
        const res = await upload(site, p.id, 'broken.jpg', broken);
        if (res.statusCode === 400) return; // refused from the header alone: also right
        assert.equal(res.statusCode, 202, res.body);
        const { imageId } = res.json();
        await ctx.imageProcessed(imageId);
        assert.equal((await status(site, p.id, imageId)).json().status, 'ERROR');
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
        const now = await product(site, productId);
        assert.equal(now.modifiedOn, before.modifiedOn);
        assert.deepEqual(now.images, before.images);
        assert.deepEqual(await storedImages(), stored, 'no file was left in storage');
      };

      test('not an image: 400, whatever its name says', async () => {
        const p = await createProduct(site, physical(site));
        assertError(
          await upload(site, p.id, 'photo.jpg', Buffer.from('<html>not an image</html>')),
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
          await upload(site, p.id, 'bomb.png', bomb),
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
        assertError(await upload(site, p.id, 'huge.jpg', big), 413, 'INVALID_REQUEST_ERROR', null, /larger/);
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
          await upload(site, p.id, 'a.jpg', jpeg, 'image'),
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
        assertError(await upload(site, p.id, 'one-more.jpg', jpeg), 409, 'CONFLICT', 'IMAGE_LIMIT_REACHED');
      });
    });

    describe('images across websites', () => {
      test("another website's product or image is a 404, and nothing is stored", async () => {
        const p = await createProduct(site, physical(site));
        const imageId = await processed(
          ctx,
          site,
          p.id,
          'mine.jpg',
          await picture(120, 120).jpeg().toBuffer(),
        );
        const other = await ctx.site();
        const jpeg = await picture(10, 10).jpeg().toBuffer();
        assertError(
          await upload(other, p.id, 'theirs.jpg', jpeg),
          404,
          'INVALID_REQUEST_ERROR',
          'INVALID_ARGUMENT',
        );
        assertError(await status(other, p.id, imageId), 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
        assert.equal((await product(site, p.id)).images.length, 1);
      });
    });
  });
}
