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
    isVisible: boolean;
    images: unknown[];
    variants: { sku: string; stock?: { quantity: number } }[];
  }[];
  assert.deepEqual(list.map((p) => [p.name, p.type]).sort(), [
    ['Beeswax Candle', 'PHYSICAL'],
    ['Canvas Tote', 'PHYSICAL'],
    ['Gift Card', 'GIFT_CARD'],
    ['Glazing at Home (PDF guide)', 'DIGITAL'],
    ['Stoneware Mug', 'PHYSICAL'],
    ['Wheel Throwing Class', 'SERVICE'],
  ]);
  // The orders took their stock: 4 sand mugs, one of them refunded and put back, 1 slate mug,
  // 3 totes, a Saturday class.
  const stock = new Map(list.flatMap((p) => (p.variants ?? []).map((v) => [v.sku, v.stock?.quantity])));
  assert.equal(stock.get('DEMO-MUG-SAND'), 21);
  assert.equal(stock.get('DEMO-MUG-SLATE'), 11);
  assert.equal(stock.get('DEMO-TOTE'), 37);
  assert.equal(stock.get('DEMO-CLASS-SAT'), 7);
  // The first products can be bought at once: shown in the store, in stock, to ship.
  for (const name of ['Stoneware Mug', 'Canvas Tote', 'Beeswax Candle']) {
    const product = list.find((p) => p.name === name)!;
    assert.equal(product.type, 'PHYSICAL', name);
    assert.equal(product.isVisible, true, name);
  }
  const images = await ctx.db
    .selectFrom('images')
    .select('alt_text')
    .where('website_id', '=', demo.websiteId)
    .execute();
  assert.equal(images.length, 6);

  const orders = await get('/1.0/commerce/orders', demo.apiKey);
  assert.equal(orders.statusCode, 200, orders.body);
  interface Order {
    id: string;
    createdOn: string;
    channel: string;
    fulfillmentStatus: string;
    paymentState: string;
    refundedTotal: { value: string };
    grandTotal: { value: string };
    shippingAddress: unknown;
    lineItems: { sku: string; lineItemType: string; quantity: number; productId: string }[];
  }
  const placed = (orders.json().result as Order[]).sort(
    (a, b) => Date.parse(a.createdOn) - Date.parse(b.createdOn),
  );
  assert.deepEqual(
    placed.map((o) => [o.channel, o.fulfillmentStatus, o.paymentState, o.refundedTotal.value]),
    [
      ['external', 'FULFILLED', 'PAID', '0.00'],
      ['external', 'PENDING', 'PAID', '0.00'],
      ['external', 'PENDING', 'PAID', '0.00'],
      // Paid in the store by card and shipped; one of its two mugs refunded and back in stock.
      ['web', 'FULFILLED', 'PAID', '18.00'],
      // The Saturday class, paid in the store: nothing to ship.
      ['web', 'PENDING', 'PAID', '0.00'],
      // The glazing guide, a download paid in the store.
      ['web', 'PENDING', 'PAID', '0.00'],
    ],
  );
  const [refunded, service, download] = placed.slice(3);
  const document = await get(`/1.0/commerce/transactions?orderId=${refunded!.id}`, demo.apiKey);
  assert.equal(document.statusCode, 200, document.body);
  const [payment] = document.json().documents[0].payments;
  assert.equal(payment.creditCardType, 'VISA');
  assert.deepEqual(
    payment.refunds.map((r: { amount: { value: string } }) => r.amount.value),
    ['18.00'],
  );
  assert.deepEqual(
    service!.lineItems.map((l) => [l.sku, l.lineItemType, l.quantity]),
    [['DEMO-CLASS-SAT', 'SERVICE', 1]],
  );
  assert.equal(service!.shippingAddress, null);
  assert.equal(service!.grandTotal.value, '45.00');
  // The download: a DIGITAL line of the product with its file, and a link to it.
  const guide = list.find((p) => p.type === 'DIGITAL') as unknown as {
    id: string;
    digitalGood: { filename: string };
  };
  assert.equal(guide.digitalGood.filename, 'glazing-guide.pdf');
  assert.deepEqual(
    download!.lineItems.map((l) => [l.sku, l.lineItemType, l.productId]),
    [[null, 'DIGITAL', guide.id]],
  );
  assert.equal(download!.shippingAddress, null);
  assert.equal(download!.grandTotal.value, '6.00');
  const links = await ctx.db
    .selectFrom('order_downloads')
    .select('id')
    .where('order_id', '=', download!.id)
    .execute();
  assert.equal(links.length, 1);
  // The newest placed three hours before start-up, whenever that is.
  const hoursAgo = (ctx.clock.now().getTime() - Date.parse(placed[5]!.createdOn)) / 3600_000;
  assert.ok(hoursAgo > 2.9 && hoursAgo < 3.1, `newest order ${hoursAgo} hours ago`);

  assert.equal(await seedDemoSite(ctx.api), undefined);
});
