import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { money } from './helpers/factories.ts';
import { seeOther, Shopper, shirt, stockOf, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * What the store's checkout sells besides physical items: a service is an order line of its own
 * type, takes its stock, and is not shipped, so an order of services alone has no shipping.
 */

let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
  site = await ctx.site();
});
after(async () => {
  await ctx.close();
});

let skus = 0;

/** A service with a 30-minute (5 left) and a 60-minute (unlimited) variant. */
async function tailoring(): Promise<{ short: string; long: string }> {
  const res = await site.call({
    method: 'POST',
    url: '/v2/commerce/products',
    payload: {
      type: 'SERVICE',
      storePageId: site.storePageId,
      name: 'Tailoring',
      isVisible: true,
      variantAttributes: ['Length'],
      variants: [
        {
          sku: `TAILOR-${++skus}`,
          pricing: { basePrice: money('25.00') },
          stock: { quantity: 5 },
          attributes: { Length: '30 min' },
        },
        {
          sku: `TAILOR-${++skus}`,
          pricing: { basePrice: money('45.00') },
          stock: { unlimited: true },
          attributes: { Length: '60 min' },
        },
      ],
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const [short, long] = res.json().variants.map((v: { id: string }) => v.id);
  return { short, long };
}

const orderOf = async (confirmation: string) => {
  const orderId = /\/checkout\/orders\/([0-9a-f]{24})$/.exec(confirmation)?.[1];
  assert.ok(orderId, confirmation);
  const res = await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

describe('services at checkout', () => {
  test('a service alone: a SERVICE line with its stock taken, no shipping, a billing address and no shipping address', async () => {
    const { short } = await tailoring();
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(short, 2));
    const form = await shopper.get(`${shopper.root}/checkout`);
    assert.equal(form.statusCode, 200);
    assert.match(text(form), /Subtotal \$50\.00 Total \$50\.00/);
    assert.doesNotMatch(text(form), /Shipping \$/);
    assert.match(form.body, /<legend>Billing address<\/legend>/);
    assert.match(form.body, /autocomplete="billing postal-code"/);
    assert.doesNotMatch(form.body, /autocomplete="shipping /);

    const confirmation = seeOther(await shopper.checkout());
    const page = await shopper.get(confirmation);
    assert.match(text(page), /Nothing in this order is shipped\./);
    const order = await orderOf(confirmation);
    assert.equal(order.lineItems.length, 1);
    const [line] = order.lineItems;
    assert.equal(line.lineItemType, 'SERVICE');
    assert.equal(line.variantId, short);
    assert.deepEqual(line.variantOptions, [{ optionName: 'Length', value: '30 min' }]);
    assert.deepEqual([line.weight, line.width, line.length, line.height], [0, 0, 0, 0]);
    assert.deepEqual(order.shippingLines, []);
    assert.deepEqual(order.shippingTotal, { currency: 'USD', value: '0.00' });
    assert.deepEqual(order.grandTotal, { currency: 'USD', value: '50.00' });
    assert.equal(order.shippingAddress, null);
    assert.equal(order.billingAddress.postalCode, '97205');
    assert.equal(order.shippingOptionName, null);
    assert.equal(await stockOf(site, short), 3);
  });

  test('a service beside a shirt: shipping is charged once, for the shirt, and each line has its type', async () => {
    const { long } = await tailoring();
    const { medium } = await shirt(site, 3);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(long, 1));
    seeOther(await shopper.add(medium, 1));
    const form = await shopper.get(`${shopper.root}/checkout`);
    assert.match(text(form), /Subtotal \$65\.00 Shipping \$5\.00 Total \$70\.00/);
    assert.match(form.body, /<legend>Shipping address<\/legend>/);
    const order = await orderOf(seeOther(await shopper.checkout()));
    assert.deepEqual(
      order.lineItems.map((l: { lineItemType: string }) => l.lineItemType),
      ['SERVICE', 'PHYSICAL_PRODUCT'],
    );
    assert.deepEqual(order.shippingTotal, { currency: 'USD', value: '5.00' });
    assert.equal(order.shippingLines.length, 1);
    assert.deepEqual(order.grandTotal, { currency: 'USD', value: '70.00' });
    assert.equal(order.shippingAddress.postalCode, '97205');
  });

  test('an import cannot sell a service as a PHYSICAL_PRODUCT line', async () => {
    const { short } = await tailoring();
    const res = await site.call({
      method: 'POST',
      url: '/1.0/commerce/orders',
      headers: { 'idempotency-key': `import-service-${skus}` },
      payload: {
        channelName: 'Market',
        externalOrderReference: `M-${skus}`,
        createdOn: '2026-03-01T09:00:00Z',
        priceTaxInterpretation: 'EXCLUSIVE',
        grandTotal: money('25.00'),
        subtotal: money('25.00'),
        lineItems: [
          { lineItemType: 'PHYSICAL_PRODUCT', variantId: short, quantity: 1, unitPricePaid: money('25.00') },
        ],
        fulfillments: [],
      },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(
      res.json().message,
      /is of a SERVICE product; a PHYSICAL_PRODUCT line sells a PHYSICAL product's variant/,
    );
  });
});
