import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDownload } from '../src/catalog/digital-goods.ts';
import { exportFixture } from '../src/testing/fixtures/export-fixture.ts';
import type { FixtureStoreOrder } from '../src/testing/fixtures/fixture-orders.schemas.ts';
import type { SiteFixture } from '../src/testing/fixtures/fixture.schemas.ts';
import { loadFixture } from '../src/testing/fixtures/load-fixture.ts';
import { fixtureOwner } from './helpers/fixtures.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/** A download in a site fixture: its file loads from beside the fixture, sells on a store order, and exports back. */

let ctx: TestContext;
let folder: string;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  folder = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-download-fixture-'));
  await fs.writeFile(path.join(folder, 'recipes.txt'), 'Celadon: 5% red iron oxide.\n');
});
after(async () => {
  await ctx.close();
  await fs.rm(folder, { recursive: true, force: true });
});

const usd = (value: string) => ({ currency: 'USD', value });
const ADDRESS = {
  firstName: 'Grace',
  lastName: 'Hopper',
  address1: '400 Cobol Street',
  city: 'Arlington',
  countryCode: 'US',
};

function fixture(): SiteFixture {
  return {
    website: { title: 'Download Pottery', currency: 'USD' },
    products: [
      {
        ref: 'mug',
        type: 'PHYSICAL',
        name: 'Mug',
        isVisible: true,
        variants: [{ sku: 'DL-MUG', pricing: { basePrice: usd('18.00') }, stock: { quantity: 5 } }],
      },
      {
        ref: 'recipes',
        type: 'DIGITAL',
        name: 'Glaze Recipes',
        isVisible: true,
        pricing: { basePrice: usd('9.00') },
        download: { file: 'recipes.txt' },
      },
    ],
    orders: [
      {
        paidBy: 'VISA',
        createdOn: '2026-01-04T10:00:00Z',
        customerEmail: 'grace@example.com',
        address: ADDRESS,
        lineItems: [
          { sku: 'DL-MUG', quantity: 1 },
          { download: 'recipes', quantity: 1 },
        ],
        fulfillments: [],
        refunds: [{ lines: [{ sku: 'download:recipes', quantity: 1 }] }],
      },
    ],
  };
}

test('a download loads from its file, sells on a store order with its refund, and exports to a fixture that loads the same', async () => {
  const first = await loadFixture(ctx.api, fixture(), {
    ownerEmail: await fixtureOwner(ctx),
    baseDir: folder,
  });
  const [orderId] = first.orderIds;
  const order = await ctx.db
    .selectFrom('orders')
    .select(['document', 'refunded_total_minor'])
    .where('id', '=', orderId!)
    .executeTakeFirstOrThrow();
  const lines = (
    order.document as {
      lineItems: { lineItemType: string; productId: string | null; variantId: string | null }[];
    }
  ).lineItems;
  assert.deepEqual(
    lines.map((l) => [l.lineItemType, l.variantId === null, l.productId]),
    [
      ['PHYSICAL_PRODUCT', false, first.productIds.mug],
      ['DIGITAL', true, first.productIds.recipes],
    ],
  );
  assert.equal(order.refunded_total_minor, 900, 'the download line refunded');
  const links = await ctx.db
    .selectFrom('order_downloads')
    .select('id')
    .where('order_id', '=', orderId!)
    .execute();
  assert.equal(links.length, 1, 'the paid order has its link');

  const exported = await exportFixture(ctx.api, first.websiteId);
  const recipes = exported.products!.find((p) => p.type === 'DIGITAL')!;
  assert.deepEqual(recipes.download, {
    base64: Buffer.from('Celadon: 5% red iron oxide.\n').toString('base64'),
    fileName: 'recipes.txt',
  });
  const [store] = exported.orders! as FixtureStoreOrder[];
  assert.deepEqual(
    store!.lineItems.map((l) => [l.sku, l.download, l.quantity]),
    [
      ['DL-MUG', undefined, 1],
      [undefined, recipes.ref, 1],
    ],
  );
  assert.deepEqual(store!.refunds, [{ lines: [{ sku: `download:${recipes.ref}`, quantity: 1 }] }]);

  const second = await loadFixture(ctx.api, exported, { ownerEmail: await fixtureOwner(ctx) });
  assert.deepEqual(await exportFixture(ctx.api, second.websiteId), exported);
  const product = await ctx.db
    .selectFrom('products')
    .select('digital_good')
    .where('id', '=', second.productIds[recipes.ref!]!)
    .executeTakeFirstOrThrow();
  const file = await openDownload(ctx.storage, product.digital_good!.id);
  const chunks: Buffer[] = [];
  for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
  assert.equal(Buffer.concat(chunks).toString(), 'Celadon: 5% red iron oxide.\n');
});

test('a download on a product of another type, or with both a file and base64, is refused with its path', async () => {
  const bad = fixture();
  bad.products![0]!.download = { base64: 'AA==' };
  await assert.rejects(
    loadFixture(ctx.api, bad, { ownerEmail: await fixtureOwner(ctx), baseDir: folder }),
    /products\[0\]\.download: only a DIGITAL product has a file to download/,
  );
  const both = fixture();
  both.products![1]!.download = { file: 'recipes.txt', base64: 'AA==' };
  await assert.rejects(
    loadFixture(ctx.api, both, { ownerEmail: await fixtureOwner(ctx), baseDir: folder }),
    /products\[1\]\.download: exactly one of file and base64/,
  );
});
