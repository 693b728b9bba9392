import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrder } from '../src/orders/orders.service.ts';
import { refundOrder } from '../src/orders/refund-order.ts';
import { paidWebOrder } from '../src/orders/web-order.ts';
import { ValidationError } from '../src/shared/errors.ts';
import { exportFixture } from '../src/testing/fixtures/export-fixture.ts';
import { loadFixture, type LoadedSite } from '../src/testing/fixtures/load-fixture.ts';
import type { FixtureStoreOrder } from '../src/testing/fixtures/fixture-orders.schemas.ts';
import type { SiteFixture } from '../src/testing/fixtures/fixture.schemas.ts';
import { TestBrowser } from './helpers/browser.ts';
import { fixtureOwner, order } from './helpers/fixtures.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * A fixture's store orders (`paidBy`): placed as the checkout places one, paid by test card, and
 * refunded as the owner's order page refunds one; a refund the order cannot take is refused with
 * its path, before anything is written.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

const usd = (value: string) => ({ currency: 'USD', value });
const PASSWORD = 'long enough password';

/** A mug, a candle of unlimited stock, a class, a gift card; a key that reads what is asserted. */
function shop(orders: SiteFixture['orders']): SiteFixture {
  return {
    website: { title: 'Store orders', currency: 'USD' },
    apiKeys: [
      {
        name: 'Test',
        scopes: ['website.orders', 'website.transactions.read', 'website.inventory.read', 'website.products'],
      },
    ],
    products: [
      {
        ref: 'mug',
        type: 'PHYSICAL',
        name: 'Stoneware Mug',
        isVisible: true,
        variants: [{ sku: 'MUG', pricing: { basePrice: usd('18.00') }, stock: { quantity: 5 } }],
      },
      {
        ref: 'candle',
        type: 'PHYSICAL',
        name: 'Beeswax Candle',
        isVisible: true,
        variants: [
          {
            sku: 'CANDLE',
            pricing: { basePrice: usd('12.00'), salePrice: usd('10.00'), onSale: true },
            stock: { unlimited: true },
          },
        ],
      },
      {
        ref: 'class',
        type: 'SERVICE',
        name: 'Wheel Throwing Class',
        isVisible: true,
        variants: [{ sku: 'CLASS', pricing: { basePrice: usd('45.00') }, stock: { quantity: 4 } }],
      },
      {
        ref: 'gift',
        type: 'GIFT_CARD',
        name: 'Gift Card',
        variants: [{ sku: 'GIFT', pricing: { basePrice: usd('25.00') } }],
      },
    ],
    orders,
  };
}

const paidAddress = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: '12 Analytical Way',
  address2: null,
  city: 'Portland',
  state: 'OR',
  countryCode: 'US',
  postalCode: '97205',
  phone: null,
};

/** Two mugs, a candle (on sale) and a class, paid by Visa and shipped: 46.00 + 45.00 + 5.00 shipping. */
function paid(refunds?: FixtureStoreOrder['refunds']): FixtureStoreOrder {
  return {
    paidBy: 'VISA',
    createdOn: '2026-02-01T10:00:00Z',
    customerEmail: 'ada@example.com',
    address: { firstName: 'Ada', lastName: 'Lovelace', address1: '12 Analytical Way', countryCode: 'US' },
    lineItems: [
      { sku: 'MUG', quantity: 2 },
      { sku: 'CANDLE', quantity: 1 },
      { sku: 'CLASS', quantity: 1 },
    ],
    fulfillmentStatus: 'FULFILLED',
    fulfilledOn: '2026-02-02T10:00:00Z',
    fulfillments: [],
    ...(refunds && { refunds }),
  };
}

async function load(fixture: SiteFixture): Promise<LoadedSite & { owner: string }> {
  const owner = await fixtureOwner(ctx);
  return { ...(await loadFixture(ctx.api, fixture, { ownerEmail: owner })), owner };
}

async function get(site: LoadedSite, url: string) {
  const res = await ctx.app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${site.apiKeys[0]!.apiKey}`, 'user-agent': 'store-orders-test' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The order, its document and the stock, as apps read them, without what differs between sites. */
async function seen(site: LoadedSite, orderId: string) {
  const order = await get(site, `/1.0/commerce/orders/${orderId}`);
  const [document] = (await get(site, `/1.0/commerce/transactions?orderId=${orderId}`)).documents;
  const products = (await get(site, '/v2/commerce/products')).products as {
    variants: { sku: string; stock?: { quantity: number } }[];
  }[];
  const [payment] = document.payments;
  return {
    order: {
      channel: order.channel,
      testmode: order.testmode,
      paymentState: order.paymentState,
      refundedTotal: order.refundedTotal,
      grandTotal: order.grandTotal,
      shippingTotal: order.shippingTotal,
      lineItems: order.lineItems.map((l: { sku: string; lineItemType: string; unitPricePaid: object }) => [
        l.sku,
        l.lineItemType,
        l.unitPricePaid,
      ]),
    },
    payment: {
      creditCardType: payment.creditCardType,
      amount: payment.amount,
      refundedAmount: payment.refundedAmount,
      netAmount: payment.netAmount,
      refunds: payment.refunds.map((r: { amount: object; externalTransactionId: string }) => [
        r.amount,
        /^re_test_/.test(r.externalTransactionId),
      ]),
    },
    totalNetPayment: document.totalNetPayment,
    stock: Object.fromEntries(
      products.flatMap((p) => p.variants.map((v) => [v.sku, v.stock?.quantity ?? null])),
    ),
  };
}

/** The owner, signed in, refunds the order from its page with the form's fields. */
async function refundFromPage(
  site: LoadedSite & { owner: string },
  orderId: string,
  fields: Record<string, string>,
) {
  const browser = new TestBrowser(ctx.app);
  assert.equal((await browser.signIn(site.owner, PASSWORD)).statusCode, 303);
  const url = `/sites/${site.websiteId}/orders/${orderId}`;
  await browser.get(url);
  const posted = await browser.post(`${url}/refunds`, { csrf: browser.csrf, ...fields });
  assert.equal(posted.statusCode, 303, posted.body);
}

describe('store orders in fixtures', () => {
  test("are placed as the checkout places them and refunded as from the order's page", async () => {
    const refunds: FixtureStoreOrder['refunds'] = [
      { lines: [{ sku: 'MUG', quantity: 1 }], restock: true },
      { shipping: true, amount: usd('1.25') },
    ];
    const loaded = await load(shop([paid(refunds)]));
    const fromFixture = await seen(loaded, loaded.orderIds[0]!);

    // The same order placed without refunds, then refunded by its owner on the order's page.
    const twin = await load(shop([paid()]));
    const orderId = twin.orderIds[0]!;
    const { lineItems } = await get(twin, `/1.0/commerce/orders/${orderId}`);
    await refundFromPage(twin, orderId, { [`qty_${lineItems[0].id}`]: '1', restock: '1' });
    await refundFromPage(twin, orderId, { shipping: '1', amount: '1.25' });
    const fromPage = await seen(twin, orderId);

    assert.deepEqual(fromFixture, fromPage);
    assert.deepEqual(fromFixture.order, {
      channel: 'web',
      testmode: true,
      paymentState: 'PAID',
      // A mug (18.00), the shipping (5.00) and 1.25 on top.
      refundedTotal: usd('24.25'),
      grandTotal: usd('96.00'),
      shippingTotal: usd('5.00'),
      lineItems: [
        ['MUG', 'PHYSICAL_PRODUCT', usd('18.00')],
        ['CANDLE', 'PHYSICAL_PRODUCT', usd('10.00')],
        ['CLASS', 'SERVICE', usd('45.00')],
      ],
    });
    assert.deepEqual(fromFixture.payment.refunds, [
      [usd('18.00'), true],
      [usd('6.25'), true],
    ]);
    assert.equal(fromFixture.payment.creditCardType, 'VISA');
    // Two mugs taken, one put back; the class taken; the candle's stock is unlimited.
    assert.deepEqual(fromFixture.stock, { MUG: 4, CANDLE: 0, CLASS: 3, GIFT: null });
  });

  test('everything left refunded makes the order REFUNDED; a canceled order is refunded after its cancel', async () => {
    const { fulfilledOn: _shipped, ...placed } = paid([{ full: true }]);
    const canceled: FixtureStoreOrder = { ...placed, fulfillmentStatus: 'CANCELED' };
    const loaded = await load(
      shop([paid([{ amount: usd('10.00') }, { full: true, restock: true }]), canceled]),
    );
    const [refunded, back] = [
      await seen(loaded, loaded.orderIds[0]!),
      await seen(loaded, loaded.orderIds[1]!),
    ];
    assert.equal(refunded.order.paymentState, 'REFUNDED');
    assert.deepEqual(refunded.order.refundedTotal, usd('96.00'));
    assert.deepEqual(
      refunded.payment.refunds.map(([amount]: [{ value: string }]) => amount.value),
      ['10.00', '86.00'],
    );
    assert.equal(back.order.paymentState, 'REFUNDED');
    // The first order's items all back; the canceled one's put back by its cancel.
    assert.deepEqual(back.stock, { MUG: 5, CANDLE: 0, CLASS: 4, GIFT: null });
  });

  test('items a refund puts back in stock can be ordered by the orders after it', async () => {
    const all: FixtureStoreOrder = {
      ...paid([{ full: true, restock: true }]),
      lineItems: [{ sku: 'MUG', quantity: 5 }],
    };
    const loaded = await load(
      shop([all, order('AFTER', [{ sku: 'MUG', quantity: 5, price: '18.00' }], 'PENDING')]),
    );
    const { products } = await get(loaded, `/v2/commerce/products/${loaded.productIds.mug}`);
    assert.deepEqual(products[0].variants[0].stock, { quantity: 0, unlimited: false });
  });

  test("an order of the store's checkout, discounted on its mugs and refunded, exports as a store order that loads back the same", async () => {
    const site = await load(shop([]));
    const variantOf = async (ref: string) =>
      (await get(site, `/v2/commerce/products/${site.productIds[ref]}`)).products[0].variants[0].id as string;
    const line = (variantId: string, quantity: number, unitPricePaidMinor: number) => ({
      lineItemType: 'PHYSICAL_PRODUCT' as const,
      variantId,
      title: null,
      quantity,
      unitPricePaidMinor,
      customizations: null,
    });
    const draft = paidWebOrder({
      currency: 'USD',
      placedOn: new Date('2026-02-03T10:00:00.000Z'),
      customerEmail: 'ada@example.com',
      address: paidAddress,
      lines: [line(await variantOf('mug'), 2, 1800), line(await variantOf('candle'), 1, 1000)],
      cardBrand: 'MASTERCARD',
      chargeId: 'checkout',
      // A PRODUCT discount, on the mugs only, as the checkout prices it.
      discount: {
        lines: [{ name: 'Mugs 10% off', promoCode: 'MUG10', amountMinor: 360 }],
        merchandiseMinor: 360,
        perLineMinor: [360, 0],
        shippingMinor: 0,
      },
    });
    const { order: placed } = await createOrder(ctx.api, site.websiteId, draft);
    const mugLine = placed.lineItems[0]!.id;
    const refund = { full: false, shipping: false, otherMinor: 0, lines: [] };
    await refundOrder(ctx.api, site.websiteId, placed.id, {
      ...refund,
      restock: true,
      lines: [{ lineId: mugLine, quantity: 1 }],
    });
    await refundOrder(ctx.api, site.websiteId, placed.id, { ...refund, restock: false, otherMinor: 100 });

    const exported = await exportFixture(ctx.api, site.websiteId);
    assert.deepEqual(exported.orders, [
      {
        paidBy: 'MASTERCARD',
        createdOn: '2026-02-03T10:00:00.000Z',
        customerEmail: 'ada@example.com',
        address: draft.billingAddress,
        lineItems: [
          { sku: 'MUG', quantity: 2, unitPricePaid: usd('18.00'), discount: usd('3.60') },
          { sku: 'CANDLE', quantity: 1, unitPricePaid: usd('10.00'), discount: usd('0.00') },
        ],
        discount: { name: 'Mugs 10% off', promoCode: 'MUG10', amount: usd('3.60') },
        fulfillmentStatus: 'PENDING',
        fulfillments: [],
        refunds: [{ lines: [{ sku: 'MUG', quantity: 1 }], restock: true }, { amount: usd('1.00') }],
      },
    ]);
    // 5 mugs, 2 sold, 1 back: 4 in stock, and 1 the order still holds, which it takes again.
    assert.deepEqual(exported.products![0]!.variants![0]!.stock, { quantity: 5, unlimited: false });

    const again = await load(exported);
    assert.deepEqual(await exportFixture(ctx.api, again.websiteId), exported);
    const [before, after] = [await seen(site, placed.id), await seen(again, again.orderIds[0]!)];
    assert.deepEqual(after, before);
    assert.deepEqual(after.order.refundedTotal, usd('17.20'), 'a mug at 16.20 after its discount, and 1.00');
  });

  test('a store order the checkout would not place so (another shipping) exports as an import', async () => {
    const site = await load(shop([]));
    const { products } = await get(site, `/v2/commerce/products/${site.productIds.mug}`);
    const draft = paidWebOrder({
      currency: 'USD',
      placedOn: new Date('2026-02-03T10:00:00.000Z'),
      customerEmail: 'ada@example.com',
      address: paidAddress,
      lines: [
        {
          lineItemType: 'PHYSICAL_PRODUCT',
          variantId: products[0].variants[0].id,
          title: null,
          quantity: 1,
          unitPricePaidMinor: 1800,
          customizations: null,
        },
      ],
      cardBrand: 'VISA',
      chargeId: 'express',
    });
    const express = {
      ...draft,
      shippingLines: [{ method: 'Express', amountMinor: 1500 }],
      shippingTotalMinor: 1500,
      grandTotalMinor: 3300,
    };
    await createOrder(ctx.api, site.websiteId, express);
    const [exported] = (await exportFixture(ctx.api, site.websiteId)).orders!;
    assert.ok(!('paidBy' in exported!), JSON.stringify(exported));
    assert.deepEqual(
      'grandTotal' in exported! && [exported.channelName, exported.grandTotal, exported.shippingLines],
      ['Emporium', usd('33.00'), [{ method: 'Express', amount: usd('15.00') }]],
    );
  });

  const refused: [string, SiteFixture['orders'], RegExp][] = [
    [
      'more items than are left to refund',
      [paid([{ lines: [{ sku: 'MUG', quantity: 1 }] }, { lines: [{ sku: 'MUG', quantity: 2 }] }])],
      /^orders\[0\]\.refunds\[1\]\.lines\[0\]\.quantity: 1 of the 2 items of SKU MUG are left to refund, not 2/,
    ],
    [
      'the shipping twice',
      [paid([{ shipping: true }, { shipping: true }])],
      /^orders\[0\]\.refunds\[1\]\.shipping: nothing of the shipping is left to refund/,
    ],
    [
      'more than is left to refund',
      [paid([{ amount: usd('90.00') }, { amount: usd('6.01') }])],
      /^orders\[0\]\.refunds\[1\]: A refund of 6\.01 USD is more than what is left to refund, 6\.00 USD\./,
    ],
    [
      'a refund after everything was refunded',
      [paid([{ full: true }, { amount: usd('1.00') }])],
      /^orders\[0\]\.refunds\[1\]: the order is already refunded in full/,
    ],
    [
      'a refund that asks for nothing',
      [paid([{ restock: true }])],
      /^orders\[0\]\.refunds\[0\]: Nothing to refund: choose items, the shipping or an amount\./,
    ],
    [
      'a refund of a SKU the order does not hold',
      [paid([{ lines: [{ sku: 'GIFT', quantity: 1 }] }])],
      /^orders\[0\]\.refunds\[0\]\.lines\[0\]\.sku: the order has no line of SKU "GIFT"/,
    ],
    [
      'everything left with items as well',
      [paid([{ full: true, lines: [{ sku: 'MUG', quantity: 1 }] }])],
      /^orders\[0\]\.refunds\[0\]\.full: refunds everything left; leave out lines, shipping and amount/,
    ],
    [
      'a restock by a refund of a canceled order',
      [{ ...paid([{ full: true, restock: true }]), fulfillmentStatus: 'CANCELED', fulfilledOn: null }],
      /^orders\[0\]\.refunds\[0\]\.restock: the order was canceled and its stock put back then/,
    ],
    [
      'refunds of an imported order, which the store took no payment for',
      [
        {
          ...order('F-1', [{ sku: 'MUG', quantity: 1, price: '18.00' }], 'PENDING'),
          refunds: [{ full: true }],
        } as unknown as FixtureStoreOrder,
      ],
      /^orders\[0\]\.refunds: an imported order was paid on another channel/,
    ],
    [
      "a store order of a gift card's variant",
      [{ ...paid(), lineItems: [{ sku: 'GIFT', quantity: 1 }] }],
      /^orders\[0\]\.lineItems\[0\]\.sku: "GIFT" is a GIFT_CARD product's variant; a fixture's store order buys no gift card/,
    ],
    [
      'a store order of more than the stock',
      [{ ...paid(), lineItems: [{ sku: 'CLASS', quantity: 5 }] }],
      /^orders\[0\]\.lineItems\[0\]\.quantity: 5 of SKU CLASS ordered, 4 left in stock/,
    ],
    [
      'a field of an import on a store order',
      [{ ...paid(), channelName: 'Elsewhere' } as FixtureStoreOrder],
      /^orders\[0\]: unknown field "channelName"/,
    ],
    [
      "a line's discount without the order's",
      [{ ...paid(), lineItems: [{ sku: 'MUG', quantity: 1, discount: usd('1.00') }] }],
      /^orders\[0\]\.lineItems\[0\]\.discount: the order has no discount/,
    ],
  ];
  for (const [what, orders, message] of refused) {
    test(`refuses ${what} with its JSON path, writing nothing`, async () => {
      const before = await ctx.db
        .selectFrom('websites')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      await assert.rejects(load(shop(orders)), (error: Error) => {
        assert.ok(error instanceof ValidationError, String(error));
        assert.match(error.message, message);
        return true;
      });
      const afterwards = await ctx.db
        .selectFrom('websites')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(afterwards.n, before.n);
    });
  }
});
