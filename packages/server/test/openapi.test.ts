import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { OPENAPI_PATH, openapiDocument } from '../src/openapi.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

test('the committed openapi.json matches the route schemas (run `npm run openapi` after changing a route)', async () => {
  assert.equal(fs.readFileSync(OPENAPI_PATH, 'utf8'), await openapiDocument());
});

/** The test controls' paths, which no app of the platform calls (docs/testing-your-app.md). */
const CONTROLS = '/_emporium/';

test('the document describes every API endpoint and the token endpoint', async () => {
  const document = JSON.parse(fs.readFileSync(OPENAPI_PATH, 'utf8'));
  const platform = Object.keys(document.paths).filter((path) => !path.startsWith(CONTROLS));
  assert.deepEqual(platform.sort(), [
    '/1.0/authorization/member',
    '/1.0/authorization/website',
    '/1.0/commerce/inventory',
    '/1.0/commerce/inventory/adjustments',
    '/1.0/commerce/inventory/{variantIds}',
    '/1.0/commerce/orders',
    '/1.0/commerce/orders/{id}',
    '/1.0/commerce/orders/{id}/fulfillments',
    '/1.0/commerce/store_pages',
    '/1.0/commerce/transactions',
    '/1.0/commerce/transactions/{documentIds}',
    '/1.0/profiles',
    '/1.0/profiles/{profileIdCsvs}',
    '/1.0/webhook_subscriptions',
    '/1.0/webhook_subscriptions/{id}',
    '/1.0/webhook_subscriptions/{id}/actions/rotateSecret',
    '/1.0/webhook_subscriptions/{id}/actions/sendTestNotification',
    '/1.1/commerce/products',
    '/1.1/commerce/products/{productIdCsvs}',
    '/1.1/commerce/products/{productId}',
    '/1.1/commerce/products/{productId}/images',
    '/1.1/commerce/products/{productId}/images/{imageId}',
    '/1.1/commerce/products/{productId}/images/{imageId}/order',
    '/1.1/commerce/products/{productId}/images/{imageId}/status',
    '/1.1/commerce/products/{productId}/variants',
    '/1.1/commerce/products/{productId}/variants/{variantId}',
    '/1.1/commerce/products/{productId}/variants/{variantId}/image',
    '/api/1/login/oauth/provider/tokens',
    '/images/{imageId}',
    '/v1/analytics/transaction-summaries',
    '/v1/commerce/discounts',
    '/v1/commerce/discounts/{discountId}',
    '/v1/contacts',
    '/v1/contacts/query',
    '/v1/contacts/{contactId}',
    '/v1/contacts/{contactId}/address-book',
    '/v1/contacts/{contactId}/address-book/{addressBookEntryId}',
    '/v1/fulfillments/fulfillment-options',
    '/v2/commerce/products',
    '/v2/commerce/products/{productIdCsvs}',
    '/v2/commerce/products/{productId}',
    '/v2/commerce/products/{productId}/images',
    '/v2/commerce/products/{productId}/images/{imageId}',
    '/v2/commerce/products/{productId}/images/{imageId}/order',
    '/v2/commerce/products/{productId}/images/{imageId}/status',
    '/v2/commerce/products/{productId}/variants',
    '/v2/commerce/products/{productId}/variants/{variantId}',
    '/v2/commerce/products/{productId}/variants/{variantId}/image',
  ]);
});

test('the test controls are documented apart: their own tag, and the operator token as their only security', () => {
  const document = JSON.parse(fs.readFileSync(OPENAPI_PATH, 'utf8'));
  const controls = Object.entries(
    document.paths as Record<string, Record<string, { tags: string[]; security: unknown }>>,
  )
    .filter(([path]) => path.startsWith(CONTROLS))
    .flatMap(([, operations]) => Object.values(operations));
  assert.ok(controls.length >= 5, `${controls.length} control operations`);
  for (const operation of controls) {
    assert.deepEqual(operation.tags, ['Test controls']);
    assert.deepEqual(operation.security, [{ operator: [] }]);
  }
});

test('GET /docs serves the API reference from the server itself', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.doesNotMatch(res.body, /(src|href)="https?:\/\//, 'nothing is loaded from another origin');
  const spec = await ctx.app.inject({ method: 'GET', url: '/docs/json' });
  assert.equal(spec.json().info.title, 'Emporium Commerce API');
  // Products v2 is in the reference, each type's shape named.
  const product = spec.json().paths['/v2/commerce/products/{productId}'].post.responses['200'];
  const shapes = product.content['application/json'].schema.anyOf.map((s: { title: string }) => s.title);
  assert.deepEqual(shapes, ['PhysicalProduct', 'ServiceProduct', 'GiftCardProduct', 'DigitalProduct']);
});
