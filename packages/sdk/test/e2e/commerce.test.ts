import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  type Order,
  type OrderCreate,
  type Product,
} from '../../src/index.ts';
import { money, startServer, times, type Server } from './server.ts';

let server: Server;
let shirt: Product;
before(async () => {
  server = await startServer();
  shirt = await server.client.products.create({
    type: 'PHYSICAL',
    storePageId: server.site.storePageId,
    name: 'Linen Shirt',
    isVisible: true,
    variantAttributes: ['Size'],
    variants: ['S', 'M'].map((size) => ({
      sku: `SHIRT-${size}`,
      attributes: { Size: size },
      pricing: { basePrice: money('39.00') },
      stock: { quantity: 10, unlimited: false },
    })),
  });
});
after(() => server.close());

let reference = 0;
/** An import of 2 S shirts and 1 M shirt at 39.00, 117.00 in all, taken from stock. */
const twoLines = (overrides: Partial<OrderCreate> = {}): OrderCreate => ({
  channelName: 'Etsy',
  externalOrderReference: `ETSY-${++reference}`,
  createdOn: '2026-08-16T08:14:10Z',
  priceTaxInterpretation: 'EXCLUSIVE',
  customerEmail: 'ada@example.com',
  shippingAddress: {
    firstName: 'Ada',
    lastName: 'Lovelace',
    address1: '1 Main St',
    city: 'Dallas',
    state: 'TX',
    countryCode: 'US',
    postalCode: '75201',
  },
  inventoryBehavior: 'DEDUCT',
  lineItems: [
    {
      lineItemType: 'PHYSICAL_PRODUCT',
      variantId: shirt.variants[0]!.id,
      quantity: 2,
      unitPricePaid: money('39.00'),
    },
    {
      lineItemType: 'PHYSICAL_PRODUCT',
      variantId: shirt.variants[1]!.id,
      quantity: 1,
      unitPricePaid: money('39.00'),
    },
  ],
  subtotal: money('117.00'),
  grandTotal: money('117.00'),
  fulfillments: [],
  ...overrides,
});

const stockOf = async () =>
  (await server.client.inventory.get(shirt.variants.map((v) => v.id))).map((i) => i.quantity);

describe('orders, their transaction documents and the buyer profile', () => {
  test('import, list with for await, get, fulfill; the document by orderId; the profile by customerId', async () => {
    const { orders, transactions, profiles } = server.client;
    const before = await stockOf();
    const created = await orders.create(twoLines());
    const { idempotencyKey, ...order } = created;
    assert.match(idempotencyKey, /^[0-9a-f-]{36}$/, 'a key made for the call, echoed');
    assert.equal(order.channel, 'external');
    assert.equal(order.fulfillmentStatus, 'PENDING');
    assert.deepEqual(
      order.lineItems.map((l) => [l.sku, l.quantity, l.productId]),
      [
        ['SHIRT-S', 2, shirt.id],
        ['SHIRT-M', 1, shirt.id],
      ],
    );
    assert.deepEqual(order.grandTotal, money('117.00'));
    assert.deepEqual(await stockOf(), [before[0]! - 2, before[1]! - 1], 'DEDUCT took the lines from stock');

    const listed: Order[] = [];
    for await (const o of orders.list()) listed.push(o);
    assert.deepEqual(
      listed.find((o) => o.id === order.id),
      order,
    );
    assert.deepEqual(await orders.get(order.id), order, 'the bare order, without the key');

    const shipment = {
      shipDate: '2026-08-17T10:00:00Z',
      carrierName: 'USPS',
      service: 'Ground Advantage',
      trackingNumber: '9400100000000000000000',
      trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000000',
    };
    await orders.fulfill(order.id, { shipments: [shipment], shouldSendNotification: false });
    const fulfilled = await orders.get(order.id);
    assert.equal(fulfilled.fulfillmentStatus, 'FULFILLED');
    assert.deepEqual(fulfilled.fulfillments, [shipment]);
    assert.ok(fulfilled.fulfilledOn);
    assert.deepEqual(
      (await orders.list({ fulfillmentStatus: 'FULFILLED' }).toArray()).map((o) => o.id),
      [order.id],
    );

    const { documents } = await transactions.list({ orderId: order.id });
    assert.equal(documents.length, 1);
    const [document] = documents;
    assert.equal(document!.salesOrderId, order.id);
    assert.equal(document!.customerEmail, 'ada@example.com');
    assert.equal(document!.salesLineItems.length, 2);
    assert.deepEqual(document!.total, money('117.00'));
    assert.deepEqual(await transactions.get(document!.id), document);
    assert.deepEqual(await transactions.get([document!.id]), [document]);
    assert.ok((await transactions.list().toArray()).some((d) => d.id === document!.id));

    assert.ok(order.customerId);
    const profile = await profiles.get(order.customerId);
    assert.equal(profile.email, 'ada@example.com');
    assert.equal(profile.isCustomer, true);
    assert.equal(profile.firstName, 'Ada');
    assert.deepEqual(
      (await profiles.list({ email: 'ADA@example.com' })).profiles.map((p) => p.id),
      [order.customerId],
    );
    const customers = await profiles
      .list({ filter: 'isCustomer,true', sortField: 'email', sortDirection: 'asc' })
      .toArray();
    assert.ok(customers.some((p) => p.id === order.customerId));
    assert.deepEqual(
      (await orders.list({ customerId: order.customerId }).toArray()).map((o) => o.id),
      [order.id],
    );
  });

  test('create with the same Idempotency-Key twice: the same order, created and taken from stock once', async () => {
    const body = twoLines();
    const before = await stockOf();
    const first = await server.client.orders.create(body);
    const again = await server.client.orders.create(body, { idempotencyKey: first.idempotencyKey });
    assert.equal(again.id, first.id);
    assert.equal(again.orderNumber, first.orderNumber);
    assert.deepEqual(await stockOf(), [before[0]! - 2, before[1]! - 1]);

    const own = await server.client.orders.create(twoLines(), { idempotencyKey: 'etsy-order-4711' });
    assert.equal(own.idempotencyKey, 'etsy-order-4711');
    assert.notEqual(own.id, first.id);
    await assert.rejects(
      server.client.orders.create(twoLines(), { idempotencyKey: 'etsy-order-4711' }),
      ValidationError,
      'the same key with another body',
    );
  });

  test('for await over more than one page of orders sees each order once', async () => {
    const made = await times(55, (i) =>
      server.client.orders.create(
        twoLines({
          inventoryBehavior: 'SKIP',
          customerEmail: `bulk${i}@example.com`,
        }),
      ),
    );
    const first = await server.client.orders.list();
    assert.equal(first.result.length, 50);
    assert.equal(first.pagination.hasNextPage, true);
    const seen: string[] = [];
    for await (const order of server.client.orders.list()) seen.push(order.id);
    assert.equal(new Set(seen).size, seen.length, 'no order twice');
    for (const order of made) assert.ok(seen.includes(order.id));

    const ids = made.map((o) => o.customerId!).reverse();
    assert.deepEqual(
      (await server.client.profiles.get(ids)).map((p) => p.id),
      ids,
      'more than 50 profiles by id, in the order asked',
    );
  });

  test('refusals arrive typed: too little stock, an unknown order', async () => {
    const { orders } = server.client;
    await assert.rejects(
      orders.create(
        twoLines({
          lineItems: [
            {
              lineItemType: 'PHYSICAL_PRODUCT',
              variantId: shirt.variants[0]!.id,
              quantity: 1000,
              unitPricePaid: money('1.00'),
            },
          ],
          subtotal: money('1000.00'),
          grandTotal: money('1000.00'),
        }),
      ),
      (e: unknown) => e instanceof ConflictError && e.subtype === 'INSUFFICIENT_STOCK',
    );
    await assert.rejects(orders.get('0123456789abcdef01234567'), NotFoundError);
    await assert.rejects(orders.fulfill('0123456789abcdef01234567', { shipments: [] }), NotFoundError);
  });
});

describe('analytics', () => {
  test("transactionSummaries: a buyer's orders summed to the cent, an unknown contact empty, in the order given", async () => {
    const buyer = { customerEmail: 'lin@example.com', inventoryBehavior: 'SKIP' as const };
    const first = await server.client.orders.create(twoLines(buyer));
    const second = await server.client.orders.create(
      twoLines({ ...buyer, createdOn: '2026-09-01T12:00:00.125Z' }),
    );
    assert.equal(second.customerId, first.customerId);
    const unknown = 'ffffffffffffffffffffffff';
    const [none, lin] = await server.client.analytics.transactionSummaries([unknown, first.customerId!]);
    assert.equal(none!.contactId, unknown);
    assert.equal(none!.transactionsSummary.orderCount, 0);
    assert.equal(none!.transactionsSummary.firstOrderSubmittedOn, null);
    assert.deepEqual(none!.transactionsSummary.totalOrderAmount, money('0.00'));
    assert.equal(lin!.contactId, first.customerId);
    assert.equal(lin!.transactionsSummary.orderCount, 2);
    assert.deepEqual(lin!.transactionsSummary.totalOrderAmount, money('234.00'));
    assert.equal(lin!.transactionsSummary.firstOrderSubmittedOn, '2026-08-16T08:14:10.000Z');
    assert.equal(lin!.transactionsSummary.lastOrderSubmittedOn, '2026-09-01T12:00:00.125Z');
    assert.deepEqual(
      lin!.transactionsSummary,
      (await server.client.profiles.get(first.customerId!)).transactionsSummary,
      "the profile's summary",
    );
  });
});
