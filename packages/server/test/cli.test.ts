import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ListCache } from '../src/catalog/list-cache.ts';
import { productDocuments } from '../src/catalog/product-documents.ts';
import { createProduct } from '../src/catalog/products.service.ts';
import { openDatabase } from '../src/db/database.ts';
import { Jobs } from '../src/jobs/queue.ts';
import { apiKeyCache, authenticateApiKey } from '../src/sites/api-keys.service.ts';
import { systemClock } from '../src/shared/clock.ts';
import { randomIds } from '../src/shared/ids.ts';
import { createClient } from '../src/oauth/clients.service.ts';
import { issueCode } from '../src/oauth/codes.ts';
import { createOwner } from '../src/sites/owners.service.ts';
import { createWebsite } from '../src/sites/websites.service.ts';
import { freshDatabase } from './helpers/database.ts';
import { runCli } from './helpers/process.ts';

let env: Record<string, string>;
before(async () => {
  env = { DATABASE_URL: await freshDatabase() };
});

const cli = (...args: string[]) => runCli(args, env);
const json = (stdout: string) => JSON.parse(stdout.trim());

describe('emporium admin', () => {
  test('creates an owner, a website with a Shop page, a store page and an API key that works, then revokes it', async () => {
    const owner = await cli(
      'admin',
      'create-owner',
      '--email',
      'cli@example.com',
      '--password',
      'long enough password',
    );
    assert.equal(owner.code, 0, owner.stderr);
    assert.match(json(owner.stdout).ownerId, /^[0-9a-f]{24}$/);

    const site = await cli(
      'admin',
      'create-website',
      '--owner',
      'CLI@example.com',
      '--title',
      'CLI Store',
      '--currency',
      'EUR',
      '--measurement-standard',
      'METRIC',
    );
    assert.equal(site.code, 0, site.stderr);
    const { websiteId, storePageId } = json(site.stdout);
    assert.match(websiteId, /^[0-9a-f]{24}$/);
    assert.match(storePageId, /^[0-9a-f]{24}$/);

    const page = await cli('admin', 'create-store-page', '--website', websiteId, '--title', 'Gifts');
    assert.equal(page.code, 0, page.stderr);
    assert.match(json(page.stdout).storePageId, /^[0-9a-f]{24}$/);

    const key = await cli(
      'admin',
      'create-api-key',
      '--website',
      websiteId,
      '--scopes',
      'website.products.read, website.inventory',
      '--name',
      'Sync',
    );
    assert.equal(key.code, 0, key.stderr);
    const { apiKey } = json(key.stdout);
    assert.match(apiKey, /^emp_key_[A-Za-z0-9_-]{43}$/);

    const handle = openDatabase(env.DATABASE_URL!, { max: 1 });
    const keyDeps = { ...handle, clock: systemClock, keys: apiKeyCache() };
    try {
      const credential = await authenticateApiKey(keyDeps, apiKey);
      assert.equal(credential?.websiteId, websiteId);
      assert.deepEqual(credential?.scopes, ['website.products.read', 'website.inventory']);
      const stored = await handle.db
        .selectFrom('api_keys')
        .selectAll()
        .where('website_id', '=', websiteId)
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(stored).includes(apiKey.slice(8)), 'SC-1 only a digest is stored');

      const revoked = await cli('admin', 'revoke-api-key', '--api-key', apiKey);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.deepEqual(json(revoked.stdout), { revoked: true });
      assert.equal(await authenticateApiKey(keyDeps, apiKey), undefined);
    } finally {
      await handle.close();
    }
  });

  test("create-api-key takes the platform's key permission names (CONTACT, DISCOUNTS_READONLY) and stores their scopes", async () => {
    const handle = openDatabase(env.DATABASE_URL!, { max: 1 });
    const deps = { db: handle.db, clock: systemClock, ids: randomIds };
    try {
      await createOwner(deps, { email: 'keys@example.com', password: 'long enough password' });
      const { websiteId } = await createWebsite(deps, { ownerEmail: 'keys@example.com', title: 'Keys' });
      const key = await cli(
        'admin',
        'create-api-key',
        '--website',
        websiteId,
        '--scopes',
        'CONTACT, DISCOUNTS_READONLY,website.orders',
      );
      assert.equal(key.code, 0, key.stderr);
      const credential = await authenticateApiKey(
        { ...handle, clock: systemClock, keys: apiKeyCache() },
        json(key.stdout).apiKey,
      );
      assert.deepEqual(credential?.scopes, ['website.contacts', 'website.discounts.read', 'website.orders']);
      const guessed = await cli('admin', 'create-api-key', '--website', websiteId, '--scopes', 'ORDERS');
      assert.equal(guessed.code, 1);
      assert.match(json(guessed.stdout).error.message, /unknown scope "ORDERS"/);
    } finally {
      await handle.close();
    }
  });

  test('create-client registers an app and prints its id and secret once', async () => {
    const owner = await cli(
      'admin',
      'create-owner',
      '--email',
      'apps@example.com',
      '--password',
      'long enough password',
    );
    assert.equal(owner.code, 0, owner.stderr);
    const created = await cli(
      'admin',
      'create-client',
      '--owner',
      'apps@example.com',
      '--name',
      'Label Printer',
      '--redirect-uri',
      'https://labels.example.com/oauth/callback',
      '--redirect-uri',
      'http://127.0.0.1:9000/callback',
      '--initiate-url',
      'https://labels.example.com/connect',
    );
    assert.equal(created.code, 0, created.stderr);
    const { clientId, clientSecret } = json(created.stdout);
    assert.match(clientId, /^[0-9a-f]{24}$/);
    assert.match(clientSecret, /^emp_cs_[A-Za-z0-9_-]{43}$/);
    const refused = await cli(
      'admin',
      'create-client',
      '--owner',
      'apps@example.com',
      '--name',
      'Label Printer',
      '--redirect-uri',
      'http://labels.example.com/callback',
    );
    assert.equal(refused.code, 1);
    assert.match(json(refused.stdout).error.message, /redirectUri: must use https/);
    const missing = await cli(
      'admin',
      'create-client',
      '--owner',
      'apps@example.com',
      '--name',
      'No Redirect',
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing --redirect-uri/);
  });

  test('revoke-access ends every token and code of a client for a website', async () => {
    const handle = openDatabase(env.DATABASE_URL!, { max: 1 });
    try {
      const deps = { db: handle.db, clock: systemClock, ids: randomIds };
      const email = 'revoke@example.com';
      const { ownerId } = await createOwner(deps, { email, password: 'long enough password' });
      const { websiteId } = await createWebsite(deps, { ownerEmail: email, title: 'Revoked Store' });
      const { clientId } = await createClient(deps, {
        ownerEmail: email,
        name: 'Connected',
        redirectUris: ['https://app.example.com/cb'],
      });
      const code = { clientId, websiteId, ownerId, offline: true, redirectUri: 'https://app.example.com/cb' };
      await issueCode(deps, { ...code, scopes: ['website.products'], codeChallenge: null });
      const revoked = await cli('admin', 'revoke-access', '--website', websiteId, '--client', clientId);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.deepEqual(json(revoked.stdout), { revoked: true });
      const live = await handle.db
        .selectFrom('oauth_grants')
        .select('id')
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .execute();
      assert.deepEqual(live, []);
      const unknown = await cli('admin', 'revoke-access', '--website', websiteId, '--client', '0'.repeat(24));
      assert.equal(unknown.code, 1);
      assert.match(json(unknown.stdout).error.message, /client not found/);
    } finally {
      await handle.close();
    }
  });

  test('create-order places a paid test order of the site’s stocked products, taking the stock; without stock, a gift wrap', async () => {
    const handle = openDatabase(env.DATABASE_URL!, { max: 1 });
    try {
      const deps = { db: handle.db, clock: systemClock, ids: randomIds };
      const email = 'orders@example.com';
      await createOwner(deps, { email, password: 'long enough password' });
      const { websiteId, storePageId } = await createWebsite(deps, {
        ownerEmail: email,
        title: 'Lamp Store',
      });
      const catalog = {
        ...deps,
        pool: handle.pool,
        baseUrl: 'http://localhost:3000',
        documents: productDocuments(1024 * 1024),
        lists: new ListCache(),
        jobs: new Jobs(env.DATABASE_URL!),
      };
      const usd = (value: string) => ({ currency: 'USD', value });
      await createProduct(catalog, websiteId, {
        type: 'PHYSICAL',
        storePageId,
        name: 'Last Lamp',
        variants: [
          {
            sku: 'LAMP-1',
            pricing: { basePrice: usd('40.00'), salePrice: usd('30.00'), onSale: true },
            stock: { quantity: 1 },
          },
        ],
      });

      const first = await cli('admin', 'create-order', '--website', websiteId);
      assert.equal(first.code, 0, first.stderr);
      const order = json(first.stdout);
      assert.match(order.id, /^[0-9a-f]{24}$/);
      assert.equal(order.orderNumber, '1');
      assert.equal(order.channel, 'web');
      assert.equal(order.testmode, true);
      assert.equal(order.paymentState, 'PAID');
      assert.equal(order.fulfillmentStatus, 'PENDING');
      assert.match(order.customerEmail, /@example\.com$/);
      assert.ok(order.customerId, 'the buyer has a profile');
      assert.equal(order.shippingAddress.countryCode, 'US');
      assert.deepEqual(
        order.lineItems.map((l: { sku: string; quantity: number; unitPricePaid: object }) => [
          l.sku,
          l.quantity,
          l.unitPricePaid,
        ]),
        [['LAMP-1', 1, usd('30.00')]],
        'one of the one lamp in stock, at its sale price',
      );
      assert.deepEqual(order.shippingLines, [{ method: 'Standard shipping', amount: usd('5.00') }]);
      assert.deepEqual([order.subtotal, order.grandTotal], [usd('30.00'), usd('35.00')]);
      const stock = await handle.db
        .selectFrom('variants')
        .select('stock_quantity')
        .where('sku', '=', 'LAMP-1')
        .executeTakeFirstOrThrow();
      assert.equal(stock.stock_quantity, 0);

      const second = await cli('admin', 'create-order', '--website', websiteId);
      assert.equal(second.code, 0, second.stderr);
      const wrap = json(second.stdout);
      assert.equal(wrap.orderNumber, '2');
      assert.deepEqual(
        wrap.lineItems.map((l: { lineItemType: string; productName: string }) => [
          l.lineItemType,
          l.productName,
        ]),
        [['CUSTOM', 'Gift wrap']],
      );
      assert.deepEqual(wrap.grandTotal, usd('10.00'));

      const unknown = await cli('admin', 'create-order', '--website', 'f'.repeat(24));
      assert.equal(unknown.code, 1);
      assert.match(json(unknown.stdout).error.message, /website not found/);
      const missing = await cli('admin', 'create-order');
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /missing --website/);
    } finally {
      await handle.close();
    }
  });
});
