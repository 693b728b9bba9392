import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { freshDatabase } from '../helpers/database.ts';
import { request, runCli, startServer, type Server } from '../helpers/process.ts';

/**
 * The real process, as `npm start` runs it: on the embedded database under a temporary DATA_DIR,
 * or, when the suite runs with DATABASE_URL, on a fresh database of that server.
 */
const external = Boolean(process.env.DATABASE_URL);
let env: Record<string, string>;
let dataDir: string;
let server: Server | undefined;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-e2e-'));
  env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...(external ? { DATABASE_URL: await freshDatabase() } : { DATABASE_URL: '' }),
  };
});

after(async () => {
  if (server && server.child.exitCode === null) await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('first start creates and shows a demo site with products and orders; the API works with its key; a restart keeps every product', async () => {
  server = await startServer(env);
  const output = server.stdout();
  const apiKey = /API key +(emp_key_\S+)/.exec(output)?.[1];
  const storePageId = /store page ([0-9a-f]{24})/.exec(output)?.[1];
  const websiteId = /website +([0-9a-f]{24})/.exec(output)?.[1];
  assert.ok(apiKey && storePageId && websiteId, output);
  assert.match(output, /password +\S{12,}/);
  assert.match(
    fs.readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8'),
    /--max-old-space-size=192\0/,
    'the executable runs node with its heap cap',
  );
  const auth = { authorization: `Bearer ${apiKey}`, 'user-agent': 'e2e' };

  // The printed store address answers with the demo's products, each with its picture.
  const storeUrl = /store +(http\S+)/.exec(output)?.[1];
  assert.equal(storeUrl, `${server.baseUrl}/s/${websiteId}`);
  const shop = await request(server.baseUrl, 'GET', `/s/${websiteId}/shop`, {});
  assert.equal(shop.status, 200, shop.body);
  assert.match(shop.body, /<h2>Stoneware Mug<\/h2>/);
  assert.match(shop.body, /alt="A slate-glazed stoneware mug"/);

  // The demo site sells its own products and has orders at once: shipped, pending, a refunded one,
  // a download.
  const demoOrders = await request(server.baseUrl, 'GET', '/1.0/commerce/orders', auth);
  assert.equal(demoOrders.status, 200, demoOrders.body);
  const orders: {
    fulfillmentStatus: string;
    fulfillments: unknown[];
    lineItems: { sku: string | null }[];
  }[] = JSON.parse(demoOrders.body).result;
  assert.deepEqual(orders.map((o) => o.fulfillmentStatus).sort(), [
    'FULFILLED',
    'FULFILLED',
    'PENDING',
    'PENDING',
    'PENDING',
    'PENDING',
  ]);
  assert.ok(
    orders.filter((o) => o.fulfillmentStatus === 'FULFILLED').every((o) => o.fulfillments.length === 1),
  );
  assert.ok(
    // A download's line has no SKU (no variant).
    orders.every((o) => o.lineItems.every((l) => l.sku === null || l.sku.startsWith('DEMO-'))),
    demoOrders.body,
  );

  // Every product type, which only v2 shows all of (orders have since moved some in the order).
  const v2 = await request(server.baseUrl, 'GET', '/v2/commerce/products', auth);
  assert.equal(v2.status, 200, v2.body);
  const types = JSON.parse(v2.body).products.map((p: { type: string }) => p.type);
  assert.deepEqual(types.sort(), ['DIGITAL', 'GIFT_CARD', 'PHYSICAL', 'PHYSICAL', 'PHYSICAL', 'SERVICE']);

  // No User-Agent header at all (node's http client sends none unless told).
  const noAgent = await request(server.baseUrl, 'GET', '/1.1/commerce/products', {
    authorization: `Bearer ${apiKey}`,
  });
  assert.equal(noAgent.status, 400);
  assert.match(JSON.parse(noAgent.body).message, /User-Agent/);

  const created = await request(server.baseUrl, 'POST', '/1.1/commerce/products', auth, {
    type: 'PHYSICAL',
    storePageId,
    name: 'Durable Mug',
    variants: [{ sku: 'DUR-1', pricing: { basePrice: { currency: 'USD', value: '3.00' } } }],
  });
  assert.equal(created.status, 201, created.body);
  const product = JSON.parse(created.body);
  assert.equal(product.url, `${server.baseUrl}/s/${websiteId}/shop/p/durable-mug`);

  // The CLI works beside the running server, on the same data.
  const page = await runCli(['admin', 'create-store-page', '--website', websiteId, '--title', 'Gifts'], env);
  assert.equal(page.code, 0, page.stderr);
  const pages = await request(server.baseUrl, 'GET', '/1.0/commerce/store_pages', auth);
  assert.deepEqual(
    JSON.parse(pages.body).storePages.map((p: { title: string }) => p.title),
    ['Shop', 'Gifts'],
  );

  assert.equal(await server.stop(), 0, 'SIGTERM stops cleanly with exit code 0');
  if (!external)
    assert.equal(
      fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')),
      false,
      'the embedded database stopped too',
    );

  server = await startServer(env);
  assert.doesNotMatch(server.stdout(), /API key/, 'the demo site is made once; secrets are not shown again');
  const again = await request(server.baseUrl, 'GET', `/1.1/commerce/products/${product.id}`, auth);
  assert.equal(again.status, 200);
  assert.deepEqual(JSON.parse(again.body).products[0].variants[0].sku, 'DUR-1');
  const ready = await request(server.baseUrl, 'GET', '/readyz', {});
  assert.equal(ready.status, 200);
  assert.equal(await server.stop(), 0);
});

test('bad configuration stops start-up with one clear line', async () => {
  const result = await runCli(['serve'], { ...env, BASE_URL: 'not a url' });
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr.trim(),
    'emporium: configuration: BASE_URL must be an absolute http(s) URL, got "not a url"',
  );
});
