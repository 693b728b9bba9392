import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { seedDemoSite } from '../src/seed.ts';
import { SCOPES } from '../src/shared/scopes.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
before(async () => {
  // An image worker: the demo's pictures are queued for processing as any upload is.
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
});
after(() => ctx.close());

const get = (url: string, apiKey: string) =>
  ctx.app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${apiKey}`, 'user-agent': 'demo-test' },
  });

test('a database without owners gets the demo site from fixtures/demo-site.json, once', async () => {
  const demo = await seedDemoSite(ctx.api);
  assert.ok(demo);
  assert.equal(demo.email, 'demo@example.com');
  assert.ok(demo.password.length >= 16);
  assert.match(demo.storePageId, /^[0-9a-f]{24}$/);

  const key = await ctx.db
    .selectFrom('api_keys')
    .select('scopes')
    .where('website_id', '=', demo.websiteId)
    .executeTakeFirstOrThrow();
  assert.deepEqual([...key.scopes].sort(), [...SCOPES].sort());

  const products = await get('/v2/commerce/products', demo.apiKey);
  assert.equal(products.statusCode, 200, products.body);
  const list = products.json().products as {
    name: string;
    type: string;
    images: unknown[];
    variants: { sku: string; stock?: { quantity: number } }[];
  }[];
  assert.deepEqual(list.map((p) => [p.name, p.type]).sort(), [
    ['Beeswax Candle', 'PHYSICAL'],
    ['Canvas Tote', 'PHYSICAL'],
    ['Gift Card', 'GIFT_CARD'],
    ['Stoneware Mug', 'PHYSICAL'],
    ['Wheel Throwing Class', 'SERVICE'],
  ]);
  // The orders took their stock: 2 sand mugs, 1 slate mug, 3 totes.
  const stock = new Map(list.flatMap((p) => p.variants.map((v) => [v.sku, v.stock?.quantity])));
  assert.equal(stock.get('DEMO-MUG-SAND'), 22);
  assert.equal(stock.get('DEMO-MUG-SLATE'), 11);
  assert.equal(stock.get('DEMO-TOTE'), 37);
  const images = await ctx.db
    .selectFrom('images')
    .select('alt_text')
    .where('website_id', '=', demo.websiteId)
    .execute();
  assert.equal(images.length, 5);

  const orders = await get('/1.0/commerce/orders', demo.apiKey);
  assert.equal(orders.statusCode, 200, orders.body);
  const placed = (orders.json().result as { createdOn: string; fulfillmentStatus: string }[])
    .map((o) => [Date.parse(o.createdOn), o.fulfillmentStatus] as const)
    .sort((a, b) => a[0] - b[0]);
  assert.deepEqual(
    placed.map(([, status]) => status),
    ['FULFILLED', 'PENDING', 'PENDING'],
  );
  // The newest placed three hours before start-up, whenever that is.
  const hoursAgo = (ctx.clock.now().getTime() - placed[2]![0]) / 3600_000;
  assert.ok(hoursAgo > 2.9 && hoursAgo < 3.1, `newest order ${hoursAgo} hours ago`);

  assert.equal(await seedDemoSite(ctx.api), undefined);
});
