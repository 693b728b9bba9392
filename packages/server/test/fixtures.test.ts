import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { FIXTURE_SCHEMA_PATH, fixtureSchemaDocument } from '../src/fixture-schema.ts';
import { ValidationError } from '../src/shared/errors.ts';
import { exportFixture } from '../src/testing/fixtures/export-fixture.ts';
import { loadFixture } from '../src/testing/fixtures/load-fixture.ts';
import type { FixtureStoreOrder } from '../src/testing/fixtures/fixture-orders.schemas.ts';
import type { SiteFixture } from '../src/testing/fixtures/fixture.schemas.ts';
import { fixtureOwner, order, richFixture } from './helpers/fixtures.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';
import { TempFolders } from './helpers/temp-folders.ts';

let ctx: TestContext;
const folders = new TempFolders();
before(async () => {
  // An image worker: uploads queue their processing as through the API.
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
});
after(async () => {
  await ctx.close();
  folders.removeAll();
});

/** The rows of every table a load writes, to show a refused load wrote none. */
async function counts(): Promise<Record<string, number>> {
  const tables = [
    'websites',
    'store_pages',
    'api_keys',
    'products',
    'variants',
    'images',
    'profiles',
    'address_book_entries',
    'discounts',
    'orders',
    'oauth_clients',
    'oauth_grants',
    'webhook_subscriptions',
    'webhook_deliveries',
  ] as const;
  const out: Record<string, number> = {};
  for (const table of tables) {
    const row = await ctx.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

const get = (url: string, token: string) =>
  ctx.app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${token}`, 'user-agent': 'fixtures-test' },
  });

describe('loadFixture', () => {
  test('creates the site through the API: the products with their stock after the orders, a key and an app token that work', async () => {
    const owner = await fixtureOwner(ctx);
    const site = await loadFixture(ctx.api, richFixture(), { ownerEmail: owner });
    assert.equal(site.storePageIds.length, 2);
    assert.deepEqual(Object.keys(site.productIds), ['mug', 'candle', 'class', 'gift', 'pattern']);

    const [key] = site.apiKeys;
    assert.deepEqual(key!.scopes, ['website.products', 'website.orders']);
    const mug = await get(`/v2/commerce/products/${site.productIds.mug}`, key!.apiKey);
    assert.equal(mug.statusCode, 200, mug.body);
    const product = mug.json().products[0];
    // 10 - 2 (shipped) - 3 (canceled, put back) = 8; 5 - 1 = 4.
    assert.deepEqual(
      product.variants.map((v: { sku: string; stock: object }) => [v.sku, v.stock]),
      [
        ['MUG-SAND', { quantity: 8, unlimited: false }],
        ['MUG-SLATE', { quantity: 4, unlimited: false }],
      ],
    );
    assert.deepEqual(
      product.images.map((i: { altText: string }) => i.altText),
      ['A slate mug', 'A sand mug'],
    );

    const orders = await get('/1.0/commerce/orders', key!.apiKey);
    assert.equal(orders.statusCode, 200, orders.body);
    assert.deepEqual(
      orders
        .json()
        .result.map((o: { externalOrderReference: string; fulfillmentStatus: string }) => [
          o.externalOrderReference,
          o.fulfillmentStatus,
        ])
        .sort(),
      [
        ['F-1', 'FULFILLED'],
        ['F-2', 'PENDING'],
        ['F-3', 'CANCELED'],
      ],
    );

    const [app] = site.apps;
    assert.match(app!.clientSecret, /^emp_cs_/);
    assert.match(app!.grant!.refreshToken!, /^emp_rt_/);
    const withToken = await get('/1.1/commerce/products', app!.grant!.accessToken);
    assert.equal(withToken.statusCode, 200, withToken.body);
    assert.equal(app!.webhookSubscriptions.length, 1);
    assert.ok(app!.webhookSubscriptions[0]!.secret.length > 0);
  });

  test('reads picture files relative to baseDir', async () => {
    const folder = folders.make('fixture-pictures-');
    const { swatchPicture } = await import('../src/media/images.ts');
    fs.mkdirSync(`${folder}/pictures`);
    fs.writeFileSync(`${folder}/pictures/red.png`, await swatchPicture('#ff0000', 32));
    const fixture: SiteFixture = {
      website: { title: 'Files' },
      products: [
        {
          type: 'PHYSICAL',
          name: 'Red',
          variants: [{ sku: 'RED', pricing: { basePrice: { currency: 'USD', value: '1.00' } } }],
          images: [{ file: 'pictures/red.png', altText: 'Red' }],
        },
      ],
    };
    const site = await loadFixture(ctx.api, fixture, {
      ownerEmail: await fixtureOwner(ctx),
      baseDir: folder,
    });
    const exported = await exportFixture(ctx.api, site.websiteId);
    assert.deepEqual(exported.products![0]!.images, [
      { generate: { colour: '#ff0000', size: 32 }, altText: 'Red' },
    ]);
  });

  const refused: [string, (f: SiteFixture) => void, RegExp][] = [
    [
      'a field the format does not have',
      (f) => Object.assign(f.products![1]!, { colour: 'red' }),
      /^products\[1\]: unknown field "colour"/,
    ],
    [
      'a value of the wrong type',
      (f) => Object.assign(f.products![0]!.variants![0]!.pricing.basePrice, { value: true }),
      /^products\[0\]\.variants\[0\]\.pricing\.basePrice\.value: must be a string or a number/,
    ],
    [
      'a price that is no amount',
      (f) => Object.assign(f.products![0]!.variants![0]!.pricing.basePrice, { value: 'twelve' }),
      /^products\[0\]\.variants\[0\]\.pricing\.basePrice/,
    ],
    [
      'variants on a DIGITAL product, which has none',
      (f) =>
        Object.assign(f.products![4]!, {
          variants: [{ sku: 'PDF', pricing: { basePrice: { currency: 'USD', value: '1' } } }],
        }),
      /^products\[4\]\.variants: a DIGITAL product has no variants/,
    ],
    [
      "stock on a gift card's variant",
      (f) => Object.assign(f.products![3]!.variants![0]!, { stock: { quantity: 1 } }),
      /^products\[3\]\.variants\[0\]\.stock: a GIFT_CARD product's variants have no stock/,
    ],
    [
      'two products with one URL slug on a store page',
      (f) => {
        f.products![0]!.urlSlug = 'pots';
        f.products![1]!.urlSlug = 'Pots';
      },
      /^products\[1\]\.urlSlug: "pots" is the slug of products\[0\] on the same store page/,
    ],
    [
      'an order of a SKU the fixture does not hold',
      (f) => f.orders!.push(order('F-9', [{ sku: 'NOPE', quantity: 1, price: '1.00' }], 'PENDING')),
      /^orders\[3\]\.lineItems\[0\]\.sku: no variant with SKU "NOPE" in products/,
    ],
    [
      'an order of more than the stock the orders before it left',
      (f) => f.orders!.push(order('F-9', [{ sku: 'MUG-SLATE', quantity: 5, price: '15.00' }], 'PENDING')),
      /^orders\[3\]\.lineItems\[0\]\.quantity: 5 of SKU MUG-SLATE ordered, 4 left in stock/,
    ],
    [
      'a discount of a product ref that is not there',
      (f) => Object.assign(f.discounts![0]!.criteria, { productId: 'vase' }),
      /^discounts\[0\]\.criteria\.productId: no product with ref "vase"/,
    ],
    [
      'a subscription to a topic the grant does not allow',
      (f) => f.apps![0]!.webhookSubscriptions![0]!.topics.push('contact.create'),
      /^apps\[0\]\.webhookSubscriptions\[0\]\.topics\[1\]: contact\.create needs the website\.contacts scope/,
    ],
  ];
  for (const [what, spoil, message] of refused) {
    test(`refuses ${what} with its JSON path, writing nothing`, async () => {
      const owner = await fixtureOwner(ctx);
      const fixture = richFixture();
      spoil(fixture);
      const before = await counts();
      await assert.rejects(loadFixture(ctx.api, fixture, { ownerEmail: owner }), (error: Error) => {
        assert.ok(error instanceof ValidationError, String(error));
        assert.match(error.message, message);
        return true;
      });
      assert.deepEqual(await counts(), before);
    });
  }

  test('takes back everything when a step fails once writing has begun', async () => {
    const owner = await fixtureOwner(ctx);
    const fixture = richFixture();
    // Only the app's registration finds this address wrong, after the rest is written.
    fixture.apps![0]!.redirectUris = ['http://app.example.com/callback'];
    const before = await counts();
    await assert.rejects(loadFixture(ctx.api, fixture, { ownerEmail: owner }), /redirectUri: must use https/);
    assert.deepEqual(await counts(), before);
  });

  test('refuses an owner that does not exist, writing nothing', async () => {
    const before = await counts();
    await assert.rejects(
      loadFixture(ctx.api, richFixture(), { ownerEmail: 'nobody@example.com' }),
      /owner not found/,
    );
    assert.deepEqual(await counts(), before);
  });
});

const usd = (value: string) => ({ currency: 'USD', value });
const GRACE = {
  firstName: 'Grace',
  lastName: 'Hopper',
  address1: '400 Cobol Street',
  city: 'Arlington',
  countryCode: 'US',
};

/**
 * The rich fixture with store orders paid by card: one shipped, discounted (each line its share),
 * refunded an item (restocked), then another amount, then the rest; one canceled and refunded in
 * full; one of a class, its shipping left out, nothing refunded.
 */
function withStoreOrders(): SiteFixture {
  const fixture = richFixture();
  fixture.orders!.push(
    {
      paidBy: 'VISA',
      createdOn: '2026-01-04T10:00:00Z',
      customerEmail: 'grace@example.com',
      address: GRACE,
      lineItems: [
        { sku: 'MUG-SAND', quantity: 2, discount: usd('3.60') },
        { sku: 'CLASS-SAT', quantity: 1, unitPricePaid: usd('40.00'), discount: usd('0.00') },
      ],
      discount: { name: 'Mugs 10% off', promoCode: 'MUG10', amount: usd('3.60') },
      fulfillmentStatus: 'FULFILLED',
      fulfilledOn: '2026-01-05T09:00:00Z',
      fulfillments: [
        {
          shipDate: '2026-01-05T09:00:00Z',
          carrierName: 'USPS',
          service: 'Ground',
          trackingNumber: '9400111',
        },
      ],
      refunds: [
        { lines: [{ sku: 'MUG-SAND', quantity: 1 }], restock: true },
        { amount: usd('2.00') },
        { full: true },
      ],
    },
    {
      paidBy: 'AMEX',
      createdOn: '2026-01-05T10:00:00Z',
      customerEmail: 'grace@example.com',
      address: GRACE,
      lineItems: [{ sku: 'MUG-SLATE', quantity: 1 }],
      discount: { name: 'Free shipping', promoCode: null, shipping: usd('5.00') },
      fulfillmentStatus: 'CANCELED',
      fulfillments: [],
      refunds: [{ full: true }],
    },
    {
      paidBy: 'MASTERCARD',
      createdOn: '2026-01-06T10:00:00Z',
      customerEmail: 'grace@example.com',
      address: GRACE,
      lineItems: [{ sku: 'CLASS-SAT', quantity: 2 }],
      fulfillments: [],
    },
  );
  return fixture;
}

describe('exportFixture', () => {
  test('gives a fixture that loads into the same site, ids aside', async () => {
    const first = await loadFixture(ctx.api, withStoreOrders(), { ownerEmail: await fixtureOwner(ctx) });
    const exported = await exportFixture(ctx.api, first.websiteId);
    const second = await loadFixture(ctx.api, exported, { ownerEmail: await fixtureOwner(ctx) });
    const again = await exportFixture(ctx.api, second.websiteId);
    assert.deepEqual(again, exported);

    // What the export says of the first site, part by part.
    assert.deepEqual(exported.website, {
      title: 'Fixture Pottery',
      currency: 'USD',
      measurementStandard: 'METRIC',
      timeZone: 'Europe/Paris',
      language: 'en-US',
    });
    assert.deepEqual(exported.storePages, [{ title: 'Classes' }]);
    assert.deepEqual(exported.apiKeys, [
      { name: 'Test suite', scopes: ['website.products', 'website.orders'] },
    ]);
    const [mug, candle, service, gift, digital] = exported.products!;
    assert.deepEqual(
      mug!.variants!.map((v) => [v.sku, v.stock, v.pricing.onSale, v.gtin]),
      [
        ['MUG-SAND', { quantity: 8, unlimited: false }, false, '01234567890128'],
        ['MUG-SLATE', { quantity: 4, unlimited: false }, true, undefined],
      ],
    );
    assert.deepEqual(mug!.images, [
      { generate: { colour: '#8a9aa8', size: 64 }, altText: 'A slate mug' },
      { generate: { colour: '#c9a66b', size: 48 }, altText: 'A sand mug' },
    ]);
    assert.deepEqual(candle!.variants![0]!.stock, { quantity: 0, unlimited: true });
    assert.equal(service!.storePage, 'Classes');
    assert.deepEqual(gift!.variants, [
      { sku: 'GIFT-25', pricing: { basePrice: { currency: 'USD', value: '25.00' } } },
    ]);
    assert.equal(digital!.pricing!.basePrice.value, '9.00');
    assert.deepEqual(
      exported.contacts!.map((c) => [c.primaryEmail.email, c.addressBook?.length]),
      [
        ['ada@example.com', 2],
        ['grace@example.com', 1],
      ],
    );
    assert.equal(exported.discounts![0]!.criteria.productId, mug!.ref);
    assert.deepEqual(
      exported.orders!.map((o) => [
        'paidBy' in o ? o.paidBy : o.externalOrderReference,
        o.fulfillmentStatus,
        o.fulfillments.length,
      ]),
      [
        ['F-1', 'FULFILLED', 1],
        ['F-2', 'PENDING', 0],
        ['F-3', 'CANCELED', 0],
        ['VISA', 'FULFILLED', 1],
        ['AMEX', 'CANCELED', 0],
        ['MASTERCARD', 'PENDING', 0],
      ],
    );
    // Store orders come back as store orders, at the prices paid, with their discount and refunds
    // as their forms asked for them: the last, after another amount, could only be "the rest".
    const [shipped, canceled, classes] = exported.orders!.slice(3) as FixtureStoreOrder[];
    assert.deepEqual(shipped, {
      paidBy: 'VISA',
      createdOn: '2026-01-04T10:00:00.000Z',
      customerEmail: 'grace@example.com',
      address: { ...GRACE, address2: null, state: null, postalCode: null, phone: null },
      lineItems: [
        { sku: 'MUG-SAND', quantity: 2, unitPricePaid: usd('18.00'), discount: usd('3.60') },
        { sku: 'CLASS-SAT', quantity: 1, unitPricePaid: usd('40.00'), discount: usd('0.00') },
      ],
      discount: { name: 'Mugs 10% off', promoCode: 'MUG10', amount: usd('3.60') },
      fulfillmentStatus: 'FULFILLED',
      fulfilledOn: '2026-01-05T09:00:00.000Z',
      fulfillments: [
        {
          shipDate: '2026-01-05T09:00:00Z',
          carrierName: 'USPS',
          service: 'Ground',
          trackingNumber: '9400111',
          trackingUrl: null,
        },
      ],
      refunds: [
        { lines: [{ sku: 'MUG-SAND', quantity: 1 }], restock: true },
        { amount: usd('2.00') },
        { full: true },
      ],
    });
    assert.deepEqual(canceled!.discount, { name: 'Free shipping', promoCode: null, shipping: usd('5.00') });
    assert.deepEqual(canceled!.refunds, [{ lines: [{ sku: 'MUG-SLATE', quantity: 1 }] }]);
    assert.deepEqual(classes!.lineItems, [{ sku: 'CLASS-SAT', quantity: 2, unitPricePaid: usd('45.00') }]);
    assert.deepEqual(exported.apps, [
      {
        name: 'Inventory Sync',
        redirectUris: ['https://app.example.com/callback'],
        grant: { scopes: ['website.products', 'website.orders.read'], offline: true },
        webhookSubscriptions: [{ endpointUrl: 'https://hooks.example.com/orders', topics: ['order.create'] }],
      },
    ]);
    assert.doesNotMatch(JSON.stringify(exported), /emp_(cs|rt|at|key)_/);
  });
});

test('the committed site-fixture.schema.json is the schema in code (run `npm run fixture-schema -w @emporium/server` after changing it)', () => {
  assert.equal(fs.readFileSync(FIXTURE_SCHEMA_PATH, 'utf8'), fixtureSchemaDocument());
});
