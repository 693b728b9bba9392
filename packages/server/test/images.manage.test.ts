import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { IMAGE_SWEEP, ORPHAN_MIN_AGE_MS, sweepOrphanImages } from '../src/catalog/images/image-sweep.ts';
import { SWEEP_LOCKS } from '../src/db/one-at-a-time.ts';
import { Product, ProductList } from '../src/catalog/products.schemas.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { picture, processed, product, PRODUCTS, serve, upload } from './helpers/images.ts';
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
 * A product's images once they are in: alt text, order, the image a variant shows, deleting them
 * (and their product), the sweep of files no image owns, and images in a list page.
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

    describe('alt text, order and delete', () => {
      const call = (method: 'POST' | 'DELETE', url: string, payload?: object, s: Site = site) =>
        s.call({ method, url: `${PRODUCTS}${url}`, ...(payload && { payload }) });
      const ids = async (productId: string) =>
        (await product(site, productId)).images.map(
          (i: { id: string; orderIndex: number }, index: number) => {
            assert.equal(i.orderIndex, index, 'orderIndex is dense');
            return i.id;
          },
        );
      /** A product with three processed images a, b, c, in that order. */
      const threeImages = async () => {
        const p = await createProduct(site, physical(site));
        const jpeg = await picture(120, 120).jpeg().toBuffer();
        const [a, b, c] = [
          await processed(ctx, site, p.id, 'a.jpg', jpeg),
          await processed(ctx, site, p.id, 'b.jpg', jpeg),
          await processed(ctx, site, p.id, 'c.jpg', jpeg),
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
        assert.equal((await product(site, p.id)).images[0].altText, 'Mug');
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
        assert.equal((await product(site, p.id)).variants[0].image.id, b);
        assert.equal((await call('DELETE', `/${p.id}/images/${b}`)).statusCode, 204);
        assert.deepEqual(await ids(p.id), [a, c]);
        assert.equal((await product(site, p.id)).variants[0].image, null);
        assert.equal((await serve(ctx, `/images/${b}`)).statusCode, 404);
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
        const variant = (await product(site, p.id)).variants[0];
        assert.deepEqual(variant.image, (await product(site, p.id)).images[0]);
        assert.equal((await call('POST', url, { imageId: null })).statusCode, 204);
        assert.equal((await product(site, p.id)).variants[0].image, null);
      });

      test("deleting a product removes its images' files", async () => {
        const { p, a } = await threeImages();
        assert.equal((await serve(ctx, `/images/${a}`)).statusCode, 200);
        assert.equal((await call('DELETE', `/${p.id}`)).statusCode, 204);
        assert.equal((await serve(ctx, `/images/${a}`)).statusCode, 404);
      });

      test('another website reaches none of these routes: 404, nothing changed', async () => {
        const { p, a } = await threeImages();
        const other = await ctx.site();
        const before = await product(site, p.id);
        for (const res of [
          await call('POST', `/${p.id}/images/${a}`, { altText: 'theirs' }, other),
          await call('POST', `/${p.id}/images/${a}/order`, { afterImageId: null }, other),
          await call('DELETE', `/${p.id}/images/${a}`, undefined, other),
          await call('POST', `/${p.id}/variants/${p.variants[0].id}/image`, { imageId: a }, other),
        ]) {
          assertError(res, 404, 'INVALID_REQUEST_ERROR', 'INVALID_ARGUMENT');
        }
        assert.deepEqual(await product(site, p.id), before);
      });

      test('concurrent uploads to one product keep a dense order with no gaps or repeats', async () => {
        const p = await createProduct(site, physical(site));
        const jpeg = await picture(50, 50).jpeg().toBuffer();
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => upload(site, p.id, `c${i}.jpg`, jpeg)),
        );
        assert.deepEqual(
          results.map((r) => r.statusCode),
          Array(8).fill(202),
        );
        const images = (await product(site, p.id)).images;
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
        const owned = await processed(ctx, site, p.id, 'kept.jpg', await picture(120, 120).jpeg().toBuffer());
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
        assert.equal((await serve(ctx, `/images/${owned}`)).statusCode, 200);
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
      const imageId = await processed(
        ctx,
        site,
        p.id,
        'listed.png',
        await picture(200, 100).png().toBuffer(),
      );
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
