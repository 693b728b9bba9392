import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrder } from '../src/orders/orders.service.ts';
import type { DraftLine, OrderDraft } from '../src/orders/place-order.ts';
import { createProduct, money, physical, variant } from './helpers/factories.ts';
import { apiOrder, documentOf, nativeDraft } from './helpers/orders.ts';
import { signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { assertSigned, connectApp, Receiver, type Received } from './helpers/webhooks.ts';

/**
 * Refunding from the order's page: the order, its transaction document, the buyer's profile, the
 * stock, the notification an app receives, the buyer's e-mail, and every refusal changing nothing.
 */

let ctx: TestContext;
let receiver: Receiver;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', webhookWorkers: 1 });
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

const START = new Date('2026-03-01T09:00:00.000Z');

async function mug(site: Site, sku: string, stock = 10): Promise<string> {
  const product = await createProduct(
    site,
    physical(site, {
      name: `Mug ${sku}`,
      variants: [
        variant(sku, {
          pricing: { basePrice: money('10.00') },
          stock: { quantity: stock, unlimited: false },
        }),
      ],
    }),
  );
  return product.variants[0].id;
}

const line = (variantId: string, quantity: number, unitPricePaidMinor = 1000): DraftLine => ({
  lineItemType: 'PHYSICAL_PRODUCT',
  variantId,
  title: null,
  quantity,
  unitPricePaidMinor,
  customizations: null,
});

/**
 * Three mugs at 10.00 with 1.00 off and 7% tax on 29.00 (2.03), 4.50 shipping: 35.53 paid by
 * card, with a 1.33 fee.
 */
async function paidOrder(site: Site, variantId: string, overrides: Partial<OrderDraft> = {}) {
  const draft = nativeDraft(START, {
    customerEmail: 'ada@example.com',
    lines: [line(variantId, 3)],
    subtotalMinor: 3000,
    discountTotalMinor: 100,
    discountLines: [{ name: 'Spring', amountMinor: 100, promoCode: 'SPRING' }],
    taxTotalMinor: 203,
    shippingTotalMinor: 450,
    shippingLines: [{ method: 'Standard', amountMinor: 450 }],
    grandTotalMinor: 3553,
    payment: {
      provider: 'STRIPE',
      creditCardType: 'VISA',
      externalTransactionId: 'ch_test_refunds',
      paidOn: START,
      processingFeeMinor: 133,
    },
    ...overrides,
  });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

async function subscribedSite() {
  const connected = await connectApp(ctx, ['website.orders', 'website.inventory.read']);
  const res = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: receiver.url,
    topics: ['order.update'],
  });
  assert.equal(res.statusCode, 201, res.body);
  const subscription = res.json() as { secret: string };
  return {
    site: connected.site,
    secret: subscription.secret,
    browser: await signedInOwner(ctx, connected.site),
  };
}

const stockOf = async (site: Site, variantId: string) => {
  const res = await site.call({ method: 'GET', url: `/1.0/commerce/inventory/${variantId}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().inventory[0].quantity as number;
};

const profileOf = async (site: Site, email: string) => {
  const res = await site.call({
    method: 'GET',
    url: `/1.0/profiles?filter=email,${encodeURIComponent(email)}`,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().profiles[0];
};

/** The receiver's next `count` requests after those it already has. */
function next(count = 1): Promise<Received[]> {
  const seen = receiver.received.length;
  return receiver.got(seen + count).then((all) => all.slice(seen));
}

const usd = (value: string) => ({ currency: 'USD', value });

describe('refunds from the order page', () => {
  test('a part refund of items: the order, its document, the profile, the stock, a signed order.update REFUNDED, the e-mail', async () => {
    const { site, secret, browser } = await subscribedSite();
    const variantId = await mug(site, 'MUG-R1');
    const placed = await paidOrder(site, variantId);
    assert.equal(await stockOf(site, variantId), 7);
    const before = await apiOrder(site, placed.id);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    const page = await browser.get(url);
    assert.match(page.body, /<h2 id="refund">Refunds<\/h2>/);
    assert.match(page.body, /Left to refund: <strong>35.53 USD<\/strong>/);
    assert.match(page.body, /Refund the shipping \(4.50 USD\)/);

    const arriving = next();
    const lineId = before.lineItems[0].id;
    const posted = await browser.post(`${url}/refunds`, {
      csrf: browser.csrf,
      [`qty_${lineId}`]: '1',
      restock: '1',
    });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal(posted.headers.location, `${url}?refunded=1`);
    const shown = await browser.get(String(posted.headers.location));
    assert.match(shown.body, /role="status">The refund was made/);
    // One mug of a line of 31.03 (29.00 after the discount, plus its tax): 31.03 / 3, rounded down.
    assert.match(shown.body, /Left to refund: <strong>25.19 USD<\/strong>/);
    assert.match(shown.body, /put 2 items back in stock/, 'a cancel puts back only what the refund did not');

    const order = await apiOrder(site, placed.id);
    assert.deepEqual(order.refundedTotal, usd('10.34'));
    assert.equal(order.paymentState, 'PAID', 'a part refund keeps PAID');
    assert.ok(order.modifiedOn > before.modifiedOn);
    assert.deepEqual(order.grandTotal, before.grandTotal);

    const document = await documentOf(site, placed.id);
    const [payment] = document.payments;
    assert.deepEqual(payment.refundedAmount, usd('10.34'));
    assert.deepEqual(payment.netAmount, usd('23.86'), '35.53 less the 1.33 fee and the 10.34 refund');
    assert.deepEqual(document.totalNetPayment, usd('23.86'));
    assert.deepEqual(document.total, usd('35.53'), 'what was sold stays');
    assert.equal(payment.refunds.length, 1);
    const [refund] = payment.refunds;
    assert.deepEqual(Object.keys(refund), ['id', 'amount', 'refundedOn', 'externalTransactionId']);
    assert.match(refund.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(refund.amount, usd('10.34'));
    assert.match(refund.externalTransactionId, /^re_test_[0-9a-f]{24}$/);
    assert.match(refund.refundedOn, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(payment.processingFees[0].feeRefunds, [], 'the gateway keeps its fee');

    assert.equal(await stockOf(site, variantId), 8, 'the refunded mug is back in stock');
    const profile = await profileOf(site, 'ada@example.com');
    assert.deepEqual(profile.transactionsSummary.totalRefundAmount, usd('10.34'));

    const [received] = await arriving;
    assert.equal(received!.json.topic, 'order.update');
    assert.deepEqual(received!.json.data, { orderId: placed.id, update: 'REFUNDED' });
    assertSigned(received!, secret);

    const emails = await ctx.db
      .selectFrom('emails')
      .select(['kind', 'to_address', 'subject', 'text'])
      .where('order_id', '=', placed.id)
      .where('kind', '=', 'refund_notice')
      .execute();
    assert.equal(emails.length, 1);
    assert.equal(emails[0]!.to_address, 'ada@example.com');
    assert.match(emails[0]!.subject, /10.34 USD refunded for order #\d+/);
    assert.match(emails[0]!.text, /has refunded 10.34 USD for your order/);
  });

  test('the rest in full comes to exactly what was paid; then REFUNDED and nothing more can be refunded', async () => {
    const { site, browser } = await subscribedSite();
    const variantId = await mug(site, 'MUG-R2');
    const placed = await paidOrder(site, variantId);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    await browser.get(url);
    const part = await browser.post(`${url}/refunds`, { csrf: browser.csrf, shipping: '1', amount: '1.25' });
    assert.equal(part.statusCode, 303, part.body);
    assert.deepEqual((await apiOrder(site, placed.id)).refundedTotal, usd('5.75'));
    await browser.get(url);
    const rest = await browser.post(`${url}/refunds`, { csrf: browser.csrf, full: '1' });
    assert.equal(rest.statusCode, 303, rest.body);
    const order = await apiOrder(site, placed.id);
    assert.deepEqual(order.refundedTotal, usd('35.53'));
    assert.equal(order.paymentState, 'REFUNDED');
    const document = await documentOf(site, placed.id);
    assert.deepEqual(
      document.payments[0].refunds.map((r: { amount: { value: string } }) => r.amount.value),
      ['5.75', '29.78'],
    );
    assert.deepEqual(document.payments[0].netAmount, usd('-1.33'), 'all of it refunded, the fee kept');
    const page = await browser.get(url);
    assert.match(page.body, /Order #\d+ is already refunded in full\./);
    assert.doesNotMatch(page.body, /action="[^"]*\/refunds"/);
    const again = await browser.post(`${url}/refunds`, { csrf: browser.csrf, full: '1' });
    assert.equal(again.statusCode, 400);
    assert.match(again.body, /role="alert">Order #\d+ is already refunded in full\./);
  });

  test('refused with the reason beside the form, and nothing changed', async () => {
    const { site, browser } = await subscribedSite();
    const variantId = await mug(site, 'MUG-R3');
    const placed = await paidOrder(site, variantId);
    const unpaid = await paidOrder(site, variantId, { paymentState: 'PENDING', payment: null });
    const imported = await paidOrder(site, variantId, { channel: 'external', payment: null });
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    const lineId = (await apiOrder(site, placed.id)).lineItems[0].id;
    const snapshot = async () => ({
      order: await apiOrder(site, placed.id),
      document: await documentOf(site, placed.id),
      stock: await stockOf(site, variantId),
    });
    const before = await snapshot();
    await browser.get(url);
    const csrf = browser.csrf;
    const cases: [Record<string, string>, RegExp][] = [
      [{ [`qty_${lineId}`]: '4' }, /Mug MUG-R3: 3 of its 3 items can be refunded, not 4/],
      [{ amount: '35.54' }, /A refund of 35.54 USD is more than what is left to refund, 35.53 USD\./],
      [{ amount: '1.234' }, /Another amount: USD allows at most 2 decimal places/],
      [{ amount: 'ten' }, /Another amount: must be a decimal string/],
      [{}, /Nothing to refund: choose items, the shipping or an amount\./],
    ];
    for (const [fields, message] of cases) {
      const res = await browser.post(`${url}/refunds`, { csrf, ...fields });
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      assert.match(res.body, message);
      if (fields.amount)
        assert.match(res.body, new RegExp(`name="amount"[^>]*value="${fields.amount.replace('.', '\\.')}"`));
    }
    const noCsrf = await browser.post(`${url}/refunds`, { amount: '1.00' });
    assert.equal(noCsrf.statusCode, 403);
    for (const [other, message] of [
      [unpaid, /is PENDING, not PAID: there is no payment to refund/],
      [imported, /came from another channel \(external\), and the store took no payment to refund/],
    ] as const) {
      const otherUrl = `/sites/${site.websiteId}/orders/${other.id}`;
      const page = await browser.get(otherUrl);
      assert.match(page.body, message);
      const res = await browser.post(`${otherUrl}/refunds`, { csrf: browser.csrf, amount: '1.00' });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, message);
    }
    assert.deepEqual(await snapshot(), before);

    const stranger = await signedInOwner(ctx, await ctx.site());
    await stranger.get('/sites');
    const foreign = await stranger.post(`${url}/refunds`, { csrf: stranger.csrf, amount: '1.00' });
    assert.equal(foreign.statusCode, 404);
    assert.deepEqual(await snapshot(), before);
  });

  test('canceling a paid order offers the refund: CANCELED and REFUNDED in one go, both notified', async () => {
    const { site, browser } = await subscribedSite();
    const variantId = await mug(site, 'MUG-R4');
    const placed = await paidOrder(site, variantId);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    const page = await browser.get(url);
    assert.match(page.body, /name="refund" value="1" checked/);
    assert.match(page.body, /Refund the 35.53 USD\s+paid/);
    const arriving = next(2);
    const posted = await browser.post(`${url}/cancel`, {
      csrf: browser.csrf,
      confirm: 'yes',
      restock: '1',
      refund: '1',
    });
    assert.equal(posted.statusCode, 303, posted.body);
    const order = await apiOrder(site, placed.id);
    assert.equal(order.fulfillmentStatus, 'CANCELED');
    assert.equal(order.paymentState, 'REFUNDED');
    assert.deepEqual(order.refundedTotal, usd('35.53'));
    assert.equal(await stockOf(site, variantId), 10);
    const updates = (await arriving).map((r) => (r.json.data as { update: string }).update).sort();
    assert.deepEqual(updates, ['CANCELED', 'REFUNDED']);
  });

  test('the dashboard counts refunds off the revenue', async () => {
    const { site, browser } = await subscribedSite();
    const variantId = await mug(site, 'MUG-R5');
    const placed = await paidOrder(site, variantId, { placedOn: ctx.clock.now() });
    const dashboard = async () => (await browser.get(`/sites/${site.websiteId}`)).body;
    assert.match(await dashboard(), /<strong>35.53 USD<\/strong> from 1\s+order/);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    await browser.get(url);
    const posted = await browser.post(`${url}/refunds`, { csrf: browser.csrf, amount: '5.53' });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.match(await dashboard(), /<strong>30.00 USD<\/strong> from 1\s+order/);
  });
});
