import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  ConflictError,
  MethodNotAllowedError,
  NotFoundError,
  ValidationError,
  type Product,
  type ProductCreate,
} from '../../src/index.ts';
import { money, startServer, times, type Server } from './server.ts';

let server: Server;
before(async () => {
  server = await startServer({ imageWorkers: 1 });
});
after(() => server.close());

const physical = (name: string, skus: string[]): ProductCreate => ({
  type: 'PHYSICAL',
  storePageId: server.site.storePageId,
  name,
  isVisible: true,
  variantAttributes: ['Size'],
  variants: skus.map((sku, i) => ({
    sku,
    attributes: { Size: ['S', 'M', 'L', 'XL'][i]! },
    pricing: { basePrice: money('39.00') },
    stock: { quantity: 10, unlimited: false },
  })),
});

const digital = (name: string): ProductCreate => ({
  type: 'DIGITAL',
  storePageId: server.site.storePageId,
  name,
  pricing: { basePrice: money('9.00') },
});

describe('products', () => {
  test('create, get, update and delete', async () => {
    const { products } = server.client;
    const created = await products.create(physical('Linen Shirt', ['SHIRT-S', 'SHIRT-M']));
    assert.equal(created.type, 'PHYSICAL');
    assert.equal(created.urlSlug, 'linen-shirt');
    assert.deepEqual(
      created.variants.map((v) => v.sku),
      ['SHIRT-S', 'SHIRT-M'],
    );
    assert.deepEqual(await products.get(created.id), created);

    const updated = await products.update(created.id, { name: 'Linen Shirt, washed', seoOptions: null });
    assert.equal(updated.name, 'Linen Shirt, washed');
    assert.notEqual(updated.modifiedOn, created.modifiedOn);

    await products.delete(created.id);
    const error = await products.get(created.id).catch((e: unknown) => e);
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.status, 404);
    assert.equal(error.type, 'INVALID_REQUEST_ERROR');
    assert.match(error.contextId!, /\w+/, 'the server names the request');
  });

  test("the server's errors arrive typed: 400, 409 and 405", async () => {
    const { products } = server.client;
    const invalid = await products
      .create({ ...digital('x'), name: 'n'.repeat(201) })
      .catch((e: unknown) => e);
    assert.ok(invalid instanceof ValidationError);
    assert.match(invalid.message, /name/);

    await products.create(physical('Tee', ['TEE-1']));
    await assert.rejects(
      products.create(physical('Other Tee', ['TEE-1'])),
      (e: unknown) => e instanceof ConflictError && e.subtype === 'SKU_UNAVAILABLE',
    );

    const book = await products.create(digital('Pattern'));
    await assert.rejects(
      products.variants.create(book.id, { sku: 'NOPE', pricing: { basePrice: money('1.00') } }),
      (e: unknown) =>
        e instanceof MethodNotAllowedError && e.subtype === 'OPERATION_NOT_ALLOWED_FOR_PRODUCT_TYPE',
    );
  });

  test('list: the first page, then every product across pages with for await; get with more than 50 ids', async () => {
    const before = (await server.client.products.list().toArray()).length;
    const made = await times(120, (i) => server.client.products.create(digital(`Bulk ${i}`)));
    const page = await server.client.products.list();
    assert.equal(page.products.length, 50);
    assert.equal(page.items.length, 50);
    assert.equal(page.pagination.hasNextPage, true);

    const seen: string[] = [];
    for await (const product of server.client.products.list()) seen.push(product.id);
    assert.equal(seen.length, before + 120);
    assert.equal(new Set(seen).size, seen.length, 'no product twice');
    for (const p of made) assert.ok(seen.includes(p.id));

    const filtered = await server.client.products.list({ query: 'Bulk 11', type: 'DIGITAL' }).toArray();
    assert.deepEqual(filtered.map((p) => p.name).sort(), [
      'Bulk 11',
      'Bulk 110',
      'Bulk 111',
      'Bulk 112',
      'Bulk 113',
      'Bulk 114',
      'Bulk 115',
      'Bulk 116',
      'Bulk 117',
      'Bulk 118',
      'Bulk 119',
    ]);

    const wanted = made.map((p) => p.id).reverse();
    const got: Product[] = await server.client.products.get(wanted);
    assert.deepEqual(
      got.map((p) => p.id),
      wanted,
      'in the order asked, across 3 requests',
    );
  });

  test('changedSince: a copy kept in sync from the newest modifiedOn it has stored sees every later change', async () => {
    const { products } = server.client;
    const copy = new Map<string, Product>();
    let newest: string | undefined;
    const sync = async () => {
      for await (const product of products.changedSince(newest)) {
        copy.set(product.id, product);
        newest = product.modifiedOn;
      }
    };
    const first = await products.create(digital('Synced first'));
    await sync();
    assert.deepEqual(copy.get(first.id), first);

    const renamed = await products.update(first.id, { name: 'Synced first, renamed' });
    const second = await products.create(digital('Synced second'));
    const before = copy.size;
    await sync();
    assert.equal(copy.size, before + 1, 'only the new product was added');
    assert.deepEqual(copy.get(first.id), renamed);
    assert.deepEqual(copy.get(second.id), second);
  });
});

describe('variants and images', () => {
  test('variants: create, update, delete, and an image shown on one', async () => {
    const { products } = server.client;
    const product = await products.create(physical('Mug', ['MUG-S']));
    const large = await products.variants.create(product.id, {
      sku: 'MUG-L',
      attributes: { Size: 'L' },
      pricing: { basePrice: money('12.00') },
    });
    assert.equal(large.sku, 'MUG-L');
    const repriced = await products.variants.update(product.id, large.id, {
      pricing: { basePrice: money('11.00') },
    });
    assert.equal(repriced.pricing.basePrice.value, '11.00');

    const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    const { imageId } = await products.images.upload(product.id, png, { filename: 'red-mug.png' });
    const ready = await products.images.waitUntilReady(product.id, imageId, { timeoutMs: 30_000 });
    assert.deepEqual(ready, { id: imageId, status: 'READY' });
    assert.equal((await products.images.status(product.id, imageId)).status, 'READY');

    await products.variants.setImage(product.id, large.id, imageId);
    let current = await products.get(product.id);
    const image = current.images.find((i) => i.id === imageId)!;
    assert.equal(image.altText, 'red-mug', 'the file name without extension');
    assert.deepEqual(image.originalSize, { width: 320, height: 200 });
    assert.deepEqual(image.availableFormats, ['100w', '300w']);
    assert.equal(current.variants.find((v) => v.id === large.id)!.image!.id, imageId);

    await products.variants.delete(product.id, large.id);
    current = await products.get(product.id);
    assert.deepEqual(
      current.variants.map((v) => v.sku),
      ['MUG-S'],
    );
    await assert.rejects(
      products.variants.delete(product.id, current.variants[0]!.id),
      (e: unknown) => e instanceof ConflictError && e.subtype === 'INSUFFICIENT_PRODUCT_VARIANTS',
    );
  });

  test('images: upload from a Blob and a File, alt text, order, delete; a file that is no image is refused', async () => {
    const { images } = server.client.products;
    const product = await server.client.products.create(digital('Poster'));
    const jpeg = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#36c' } })
      .jpeg()
      .toBuffer();
    const first = await images.upload(product.id, new Blob([jpeg]), { filename: 'blue.jpg' });
    const second = await images.upload(product.id, new File([jpeg], 'second.jpg'));
    await Promise.all([
      images.waitUntilReady(product.id, first.imageId),
      images.waitUntilReady(product.id, second.imageId),
    ]);

    const alt = await images.setAltText(product.id, first.imageId, 'A blue poster');
    assert.equal(alt.altText, 'A blue poster');
    await images.reorder(product.id, second.imageId, null);
    let current = await server.client.products.get(product.id);
    assert.deepEqual(
      current.images.map((i) => [i.id, i.orderIndex]),
      [
        [second.imageId, 0],
        [first.imageId, 1],
      ],
    );
    await images.delete(product.id, second.imageId);
    current = await server.client.products.get(product.id);
    assert.deepEqual(
      current.images.map((i) => i.id),
      [first.imageId],
    );

    await assert.rejects(
      images.upload(product.id, new TextEncoder().encode('GIF89a-not-really'), { filename: 'broken.gif' }),
      (e: unknown) => e instanceof ValidationError && /cannot be read/.test(e.message),
    );
  });
});

describe('store pages, website and inventory', () => {
  test('store pages and the website of the key', async () => {
    const pages = await server.client.storePages.list();
    assert.deepEqual(
      pages.storePages.map((p) => p.id),
      [server.site.storePageId],
    );
    const website = await server.client.website.get();
    assert.equal(website.id, server.site.websiteId);
    assert.equal(website.currency, 'USD');
  });

  test('inventory: list, get, adjust (replayed with the same key: applied once)', async () => {
    const { inventory, products } = server.client;
    const product = await products.create(physical('Socks', ['SOCK-S', 'SOCK-M']));
    const [small, medium] = product.variants.map((v) => v.id) as [string, string];

    const all = await inventory.list().toArray();
    assert.ok(all.some((i) => i.variantId === small));
    const item = await inventory.get(small);
    assert.deepEqual(item, {
      variantId: small,
      sku: 'SOCK-S',
      descriptor: 'Socks [S]',
      isUnlimited: false,
      quantity: 10,
    });

    const { idempotencyKey } = await inventory.adjust({
      incrementOperations: [{ variantId: small, quantity: 5 }],
      setUnlimitedOperations: [medium],
    });
    await inventory.adjust(
      { incrementOperations: [{ variantId: small, quantity: 5 }], setUnlimitedOperations: [medium] },
      { idempotencyKey },
    );
    const [s, m] = await inventory.get([small, medium]);
    assert.equal(s!.quantity, 15, 'the replay did not apply twice');
    assert.equal(m!.isUnlimited, true);

    await assert.rejects(
      inventory.adjust({ decrementOperations: [{ variantId: small, quantity: 99 }] }),
      (e: unknown) => e instanceof ConflictError && e.subtype === 'INSUFFICIENT_STOCK',
    );
  });

  test('inventory.get with more than 50 variant ids', async () => {
    const made = await times(9, (i) =>
      server.client.products.create(
        physical(
          `Pack ${i}`,
          [0, 1, 2, 3].map((n) => `PACK-${i}-${n}`),
        ),
      ),
    );
    const ids = made.flatMap((p) => p.variants.map((v) => v.id)).reverse(); // 36
    const more = await times(20, (i) =>
      server.client.products.create(physical(`Single ${i}`, [`SINGLE-${i}`])),
    );
    ids.push(...more.map((p) => p.variants[0]!.id)); // 56
    const items = await server.client.inventory.get(ids);
    assert.deepEqual(
      items.map((i) => i.variantId),
      ids,
    );
  });
});

describe('the README quickstart', () => {
  test('examples/quickstart.ts runs against the server through the built package', async () => {
    const { Emporium } = await import('@emporium/sdk');
    const { quickstart } = await import('../../examples/quickstart.ts');
    const lines: string[] = [];
    await quickstart(
      new Emporium({ userAgent: 'quickstart-test/1.0', baseUrl: server.url, apiKey: server.site.apiKey }),
      (line) => lines.push(line),
    );
    assert.match(
      lines.join('\n'),
      /created Linen Shirt[\s\S]*is ready[\s\S]*refused as expected: INSUFFICIENT_STOCK[\s\S]*deleted/,
    );
  });
});
