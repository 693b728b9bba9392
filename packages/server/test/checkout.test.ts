import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ordersOf, seeOther, Shopper, shirt, stockOf, text } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp, Receiver } from './helpers/webhooks.ts';

/** The storefront's checkout: the cart becomes a web order, as any channel's order is placed. */

let ctx: TestContext;
let receiver: Receiver;
before(async () => {
  ctx = await testApp({ webhookWorkers: 1 });
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

const CARD = '4242424242424242';

/** A site whose orders an app hears of, at the receiver. */
async function subscribedSite(): Promise<Site> {
  const app = await connectApp(ctx, ['website.products', 'website.orders']);
  const res = await app.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: receiver.url,
    topics: ['order.create'],
  });
  assert.equal(res.statusCode, 201, res.body);
  return app.site;
}

describe('checkout', () => {
  test('places a web order with its number, transaction document, buyer profile, stock taken and order.create queued', async () => {
    const site = await subscribedSite();
    const { small, medium } = await shirt(site, 3);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 2));
    seeOther(await shopper.add(medium, 1));
    const form = await shopper.get(`${shopper.root}/checkout`);
    assert.equal(form.statusCode, 200);
    assert.match(text(form), /Subtotal \$50\.00 Shipping \$5\.00 Total \$55\.00/);
    for (const auto of [
      'email',
      'shipping given-name',
      'shipping postal-code',
      'cc-number',
      'cc-exp',
      'cc-csc',
    ]) {
      assert.match(form.body, new RegExp(`autocomplete="${auto}"`), auto);
    }
    assert.match(
      form.body,
      /<label for="f-email"\s*><span>E-mail<\/span><\/label\s*>\s*<input\s+id="f-email"/,
    );

    const notified = receiver.got(1);
    const confirmation = seeOther(await shopper.checkout({ cardNumber: '4242 4242 4242 4242' }));
    const orderId = /\/checkout\/orders\/([0-9a-f]{24})$/.exec(confirmation)?.[1];
    assert.ok(orderId, confirmation);
    const page = await shopper.get(confirmation);
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['cache-control'], 'no-store');

    const api = await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` });
    assert.equal(api.statusCode, 200, api.body);
    const order = api.json();
    assert.match(text(page), new RegExp(`Your order number is ${order.orderNumber} \\.`));
    assert.equal(order.channel, 'web');
    assert.equal(order.testmode, true);
    assert.equal(order.customerEmail, 'ada@example.com');
    assert.equal(order.shippingAddress.postalCode, '97205');
    assert.deepEqual(
      order.lineItems.map((l: { variantId: string; quantity: number; unitPricePaid: { value: string } }) => [
        l.variantId,
        l.quantity,
        l.unitPricePaid.value,
      ]),
      [
        [small, 2, '15.00'],
        [medium, 1, '20.00'],
      ],
      'the sale price of S, the base price of M',
    );
    assert.equal(order.grandTotal.value, '55.00');
    assert.equal(order.fulfillmentStatus, 'PENDING');

    const documents = await site.call({
      method: 'GET',
      url: `/1.0/commerce/transactions?orderId=${orderId}`,
    });
    const [document] = documents.json().documents;
    assert.equal(document.salesOrderId, orderId);
    assert.equal(document.payments[0].creditCardType, 'VISA');
    assert.equal(document.payments[0].amount.value, '55.00');
    const profiles = await site.call({ method: 'GET', url: '/1.0/profiles?filter=email,ada@example.com' });
    assert.equal(profiles.json().profiles[0].firstName, 'Ada');
    assert.equal(await stockOf(site, small), 1);
    assert.equal(await stockOf(site, medium), 9);
    const queued = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['topic', 'body'])
      .where('website_id', '=', site.websiteId)
      .execute();
    assert.deepEqual(
      queued.filter((d) => d.topic === 'order.create').map((d) => JSON.parse(d.body).data),
      [{ orderId }],
    );
    const [received] = await notified;
    assert.equal(received!.json.topic, 'order.create');
    assert.deepEqual(received!.json.data, { orderId });

    assert.match(
      text(await shopper.get(`${shopper.root}/cart`)),
      /Your cart is empty\./,
      'the cart was emptied',
    );
    const stranger = new Shopper(ctx, site.websiteId);
    assert.equal((await stranger.get(confirmation)).statusCode, 404, 'only the buying browser sees it');
    // The card number is kept nowhere and logged nowhere: the order keeps the card's brand.
    const row = JSON.stringify(await ordersOf(ctx, site.websiteId));
    const docs = JSON.stringify(await ctx.db.selectFrom('transaction_documents').selectAll().execute());
    for (const where of [row, docs, ctx.logs.join('')])
      assert.ok(!where.includes(CARD) && !where.includes('4242 4242'));
  });

  test('a declined card, an unknown card or bad fields: messages by the fields, the values kept, nothing changed', async () => {
    const site = await ctx.site();
    const { small } = await shirt(site, 3);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 1));
    const cart = shopper.cookies.get('emporium_cart');

    const declined = await shopper.checkout({ cardNumber: '4000 0000 0000 0002' });
    assert.equal(declined.statusCode, 400);
    assert.match(
      declined.body,
      /<p class="field-error sale" id="f-cardNumber-error">Your card was declined\.<\/p>/,
    );
    assert.match(declined.body, /aria-describedby="f-cardNumber-error"/);
    assert.match(
      declined.body,
      /name="email"\s+type="email"\s+value="ada@example.com"/,
      'the values are kept',
    );
    assert.doesNotMatch(declined.body, /value="123"/, 'but never the security code');
    assert.doesNotMatch(declined.body, /value="4000 0000 0000 0002"/, 'nor the card number');
    assert.match(
      text(await shopper.checkout({ cardNumber: '4242 4242 4242 4241' })),
      /Your card number is incorrect\./,
    );
    assert.match(
      text(await shopper.checkout({ cardNumber: '5555 5555 5555 4444' })),
      /declined: this store is in test mode/,
    );

    const bad = await shopper.checkout({
      email: 'not-an-address',
      firstName: 'Grace',
      city: '',
      countryCode: 'XX',
      cardExpiry: '01/20',
      cardCvc: '1',
    });
    assert.equal(bad.statusCode, 400);
    const shown = text(bad);
    for (const message of [
      'Enter an e-mail address such as name@example.com.',
      'Enter your town or city.',
      'Choose a country.',
      'Your card’s expiration date is in the past.',
      'Your card’s security code is invalid.',
    ]) {
      assert.ok(shown.includes(message), message);
    }
    assert.match(bad.body, /value="Grace"/);

    assert.equal((await ordersOf(ctx, site.websiteId)).length, 0);
    assert.equal(await stockOf(site, small), 3);
    assert.equal(shopper.cookies.get('emporium_cart'), cart, 'the cart is kept');
    const profiles = await site.call({ method: 'GET', url: '/1.0/profiles' });
    assert.deepEqual(profiles.json().profiles, []);
  });

  test('prices are the catalog’s at checkout time, never the cart’s', async () => {
    const site = await ctx.site();
    const { product, small } = await shirt(site, 3);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 1));
    const variantUrl = `/1.1/commerce/products/${product.id}/variants/${small}`;
    const reprice = await site.call({
      method: 'POST',
      url: variantUrl,
      payload: { pricing: { basePrice: { currency: 'USD', value: '31.00' }, onSale: false } },
    });
    assert.equal(reprice.statusCode, 200, reprice.body);
    seeOther(await shopper.checkout());
    const [row] = await ordersOf(ctx, site.websiteId);
    const order = (await site.call({ method: 'GET', url: `/1.0/commerce/orders/${row!.id}` })).json();
    assert.equal(order.lineItems[0].unitPricePaid.value, '31.00');
    assert.equal(order.grandTotal.value, '36.00');
  });

  test('an empty or tampered cart, or a post without the CSRF token, places nothing', async () => {
    const site = await ctx.site();
    const { small } = await shirt(site, 3);
    const shopper = new Shopper(ctx, site.websiteId);
    assert.equal(seeOther(await shopper.get(`${shopper.root}/checkout`)), `${shopper.root}/cart`);
    const empty = await shopper.checkout();
    assert.equal(empty.statusCode, 409);
    assert.match(text(empty), /Your cart is empty\./);

    seeOther(await shopper.add(small, 1));
    shopper.cookies.set('emporium_cart', shopper.cookies.get('emporium_cart')!.replace('*1', '*3'));
    assert.match(text(await shopper.checkout()), /Your cart is empty\./);

    seeOther(await shopper.add(small, 1));
    for (const csrf of ['', 'A'.repeat(43)]) {
      const refused = await shopper.checkout({ csrf });
      assert.equal(refused.statusCode, 403);
    }
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 0);
    assert.equal(await stockOf(site, small), 3);
  });

  test('one form sent twice, at once or later, places one order; another browser’s key is its own', async () => {
    const site = await ctx.site();
    const { small } = await shirt(site, 3);
    const shopper = new Shopper(ctx, site.websiteId);
    seeOther(await shopper.add(small, 1));
    const cart = shopper.cookies.get('emporium_cart')!;
    const attempt = randomUUID();
    const both = await Promise.all([shopper.checkout({ attempt }), shopper.checkout({ attempt })]);
    const [first, second] = both.map(seeOther) as [string, string];
    assert.equal(first, second, 'both sends lead to the one order');
    shopper.cookies.set('emporium_cart', cart);
    assert.equal(seeOther(await shopper.checkout({ attempt })), first, 'sent again later');
    shopper.cookies.delete('emporium_cart');
    assert.equal(
      seeOther(await shopper.checkout({ attempt })),
      first,
      'sent again after its first answer had emptied the cart',
    );
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 1);
    assert.equal(await stockOf(site, small), 2);

    const other = new Shopper(ctx, site.websiteId);
    seeOther(await other.add(small, 1));
    const theirs = seeOther(await other.checkout({ attempt }));
    assert.notEqual(theirs, first, 'the same key from another browser is another order');
    assert.equal((await other.get(first)).statusCode, 404);
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 2);

    seeOther(await shopper.add(small, 1));
    const keyless = await shopper.checkout({ attempt: '' });
    assert.match(text(keyless), /This form has expired\. Reload the checkout page and try again\./);
    assert.match(keyless.body, /name="attempt" value="[0-9a-f-]{36}"/, 'the form shown again has a key');
    assert.equal((await ordersOf(ctx, site.websiteId)).length, 2);
  });
});
