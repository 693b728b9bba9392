import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  MethodNotAllowedError,
  NotFoundError,
  ValidationError,
  type GiftCardProductV2,
  type PhysicalProductV2,
  type ProductV2,
  type ServiceProductV2,
} from '../../src/index.ts';
import { money, startServer, type Server } from './server.ts';

let server: Server;
before(async () => {
  server = await startServer({ imageWorkers: 1 });
});
after(() => server.close());

/** Narrows a v2 product to the type it should have. */
function ofType<T extends ProductV2['type']>(product: ProductV2, type: T): Extract<ProductV2, { type: T }> {
  assert.equal(product.type, type);
  return product as Extract<ProductV2, { type: T }>;
}

const createPhysical = async (name: string, sku: string): Promise<PhysicalProductV2> =>
  ofType(
    await server.client.v2.products.create({
      type: 'PHYSICAL',
      storePageId: server.site.storePageId,
      name,
      isVisible: true,
      variantAttributes: ['Size'],
      variants: [
        {
          sku,
          attributes: { Size: 'S' },
          pricing: { basePrice: money('39.00') },
          stock: { quantity: 10, unlimited: false },
          gtin: '01234567890128',
          mpn: 'MPN-1234',
        },
      ],
    }),
    'PHYSICAL',
  );

const createService = async (name: string, sku: string): Promise<ServiceProductV2> =>
  ofType(
    await server.client.v2.products.create({
      type: 'SERVICE',
      storePageId: server.site.storePageId,
      name,
      variantAttributes: ['Length'],
      variants: [
        {
          sku,
          attributes: { Length: '60 min' },
          pricing: { basePrice: money('80.00') },
          stock: { unlimited: true },
        },
      ],
    }),
    'SERVICE',
  );

const createGiftCard = async (name: string, skus: string[]): Promise<GiftCardProductV2> =>
  ofType(
    await server.client.v2.products.create({
      type: 'GIFT_CARD',
      storePageId: server.site.storePageId,
      name,
      variants: skus.map((sku, i) => ({ sku, pricing: { basePrice: money(`${25 * (i + 1)}.00`) } })),
    }),
    'GIFT_CARD',
  );

describe('client.v2.products', () => {
  test('creates a PHYSICAL, a SERVICE and a GIFT_CARD product, each with its own fields', async () => {
    const shirt = await createPhysical('V2 Shirt', 'V2-SHIRT-S');
    assert.deepEqual(
      shirt.variants.map((v) => [v.sku, v.gtin, v.mpn]),
      [['V2-SHIRT-S', '01234567890128', 'MPN-1234']],
    );
    const tailoring = await createService('V2 Tailoring', 'V2-TAILOR-60');
    assert.deepEqual(tailoring.variantAttributes, ['Length']);
    assert.equal(tailoring.variants[0]!.stock.unlimited, true);
    assert.ok(!('gtin' in tailoring.variants[0]!), 'a SERVICE variant has no gtin');
    const card = await createGiftCard('V2 Gift Card', ['V2-GIFT-25', 'V2-GIFT-50']);
    assert.deepEqual(
      card.variants.map((v) => [v.sku, v.pricing.basePrice.value]),
      [
        ['V2-GIFT-25', '25.00'],
        ['V2-GIFT-50', '50.00'],
      ],
    );
    assert.ok(!('variantAttributes' in card), 'a GIFT_CARD product has no variantAttributes');
    assert.ok(!('stock' in card.variants[0]!), 'nor stock on its variants');

    assert.deepEqual(await server.client.v2.products.get(card.id), card);
  });

  test('list: every type by default, or those named in `type`; get by ids in the order asked', async () => {
    const shirt = await createPhysical('Listed Shirt', 'LIST-SHIRT-S');
    const lesson = await createService('Listed Lesson', 'LIST-LESSON');
    const card = await createGiftCard('Listed Card', ['LIST-CARD-25']);
    const ids = (products: ProductV2[]) => products.map((p) => p.id);
    const { v2 } = server.client;

    const all = ids(await v2.products.list({ query: 'Listed' }).toArray());
    assert.deepEqual(all.sort(), [shirt.id, lesson.id, card.id].sort());
    const some = await v2.products.list({ query: 'Listed', type: ['SERVICE', 'GIFT_CARD'] }).toArray();
    assert.deepEqual(ids(some).sort(), [lesson.id, card.id].sort());
    const page = await v2.products.list({ type: 'GIFT_CARD' });
    assert.ok(page.products.every((p) => p.type === 'GIFT_CARD'));
    assert.ok(ids(page.items).includes(card.id));
    assert.equal(page.pagination.hasNextPage, false);

    const wanted = [card.id, shirt.id, lesson.id];
    assert.deepEqual(ids(await v2.products.get(wanted)), wanted);
    assert.deepEqual(
      (await v2.products.get(wanted)).map((p) => p.type),
      ['GIFT_CARD', 'PHYSICAL', 'SERVICE'],
    );
  });

  test('update with seoData and productAttributeNames: the answer names them seoOptions and variantAttributes', async () => {
    const lesson = await createService('SEO Lesson', 'SEO-LESSON');
    const updated = ofType(
      await server.client.v2.products.update(lesson.id, {
        name: 'SEO Lesson, advanced',
        seoData: { title: 'Advanced lesson', description: 'Two hours' },
        productAttributeNames: ['Length'],
      }),
      'SERVICE',
    );
    assert.equal(updated.name, 'SEO Lesson, advanced');
    assert.deepEqual(updated.seoOptions, { title: 'Advanced lesson', description: 'Two hours' });
    assert.deepEqual(updated.variantAttributes, ['Length']);
    assert.deepEqual(await server.client.v2.products.get(lesson.id), updated);
  });

  test('variants: add one with a gtin, change its gtin, delete it; a gift card gets another denomination', async () => {
    const { variants } = server.client.v2.products;
    const shirt = await createPhysical('Variant Shirt', 'VAR-SHIRT-S');
    const large = await variants.create(shirt.id, {
      sku: 'VAR-SHIRT-L',
      attributes: { Size: 'L' },
      pricing: { basePrice: money('41.00') },
      gtin: '96385074',
    });
    assert.equal(large.sku, 'VAR-SHIRT-L');
    assert.ok('gtin' in large && large.gtin === '96385074');

    const changed = await variants.update(shirt.id, large.id, { gtin: '4006381333931', mpn: 'SHIRT-L-2' });
    assert.ok('gtin' in changed);
    assert.deepEqual([changed.gtin, changed.mpn], ['4006381333931', 'SHIRT-L-2']);
    await assert.rejects(
      variants.update(shirt.id, large.id, { gtin: '123' }),
      (e: unknown) => e instanceof ValidationError && /gtin/.test(e.message),
    );
    let current = ofType(await server.client.v2.products.get(shirt.id), 'PHYSICAL');
    assert.equal(current.variants.find((v) => v.id === large.id)!.gtin, '4006381333931');

    await variants.delete(shirt.id, large.id);
    current = ofType(await server.client.v2.products.get(shirt.id), 'PHYSICAL');
    assert.deepEqual(
      current.variants.map((v) => v.sku),
      ['VAR-SHIRT-S'],
    );

    const card = await createGiftCard('Variant Card', ['VAR-CARD-25']);
    const hundred = await variants.create(card.id, {
      sku: 'VAR-CARD-100',
      pricing: { basePrice: money('100.00') },
    });
    assert.deepEqual(Object.keys(hundred).sort(), ['id', 'image', 'pricing', 'sku']);
  });

  test('images: upload, wait until READY, show on a variant, alt text, delete', async () => {
    const { images, variants } = server.client.v2.products;
    const lesson = await createService('Image Lesson', 'IMG-LESSON');
    const png = await sharp({ create: { width: 240, height: 160, channels: 3, background: '#3a6' } })
      .png()
      .toBuffer();
    const { imageId } = await images.upload(lesson.id, png, { filename: 'lesson.png' });
    const ready = await images.waitUntilReady(lesson.id, imageId, { timeoutMs: 30_000 });
    assert.deepEqual(ready, { id: imageId, status: 'READY' });
    assert.equal((await images.status(lesson.id, imageId)).status, 'READY');

    await variants.setImage(lesson.id, lesson.variants[0]!.id, imageId);
    const alt = await images.setAltText(lesson.id, imageId, 'A lesson');
    assert.equal(alt.altText, 'A lesson');
    const current = ofType(await server.client.v2.products.get(lesson.id), 'SERVICE');
    assert.deepEqual(
      current.images.map((i) => [i.id, i.altText]),
      [[imageId, 'A lesson']],
    );
    assert.equal(current.variants[0]!.image!.id, imageId);

    await images.delete(lesson.id, imageId);
    const emptied = ofType(await server.client.v2.products.get(lesson.id), 'SERVICE');
    assert.deepEqual(emptied.images, []);
    assert.equal(emptied.variants[0]!.image, null);
  });

  test('a SERVICE product made through v2 does not exist for 1.1; a DIGITAL product cannot be created through v2', async () => {
    const lesson = await createService('Hidden Lesson', 'HIDDEN-LESSON');
    const error = await server.client.products.get(lesson.id).catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError, 'client.products (1.1) does not show it');
    assert.equal(error.status, 404);
    const listed = await server.client.products.list({ query: 'Hidden Lesson' }).toArray();
    assert.deepEqual(listed, []);

    await assert.rejects(
      server.client.v2.products.create({
        type: 'DIGITAL',
        storePageId: server.site.storePageId,
        name: 'Pattern',
        pricing: { basePrice: money('9.00') },
      }),
      (e: unknown) =>
        e instanceof MethodNotAllowedError && e.subtype === 'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );

    await server.client.v2.products.delete(lesson.id);
    await assert.rejects(server.client.v2.products.get(lesson.id), NotFoundError);
  });

  test('a DIGITAL product made through 1.1 is read and updated through v2, but not deleted there', async () => {
    const made = await server.client.products.create({
      type: 'DIGITAL',
      storePageId: server.site.storePageId,
      name: 'Pattern book',
      pricing: { basePrice: money('9.00') },
    });
    const { v2 } = server.client;
    const book = ofType(await v2.products.get(made.id), 'DIGITAL');
    assert.equal(book.pricing!.basePrice.value, '9.00');
    const repriced = ofType(
      await v2.products.update(made.id, { pricing: { basePrice: money('7.50') } }),
      'DIGITAL',
    );
    assert.equal(repriced.pricing!.basePrice.value, '7.50');
    await assert.rejects(v2.products.delete(made.id), MethodNotAllowedError);
    await assert.rejects(
      v2.products.variants.create(made.id, { sku: 'BOOK-2', pricing: { basePrice: money('1.00') } }),
      MethodNotAllowedError,
    );
    await server.client.products.delete(made.id);
  });
});
