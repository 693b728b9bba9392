import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { seeOther, Shopper, shirt } from './helpers/shopper.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';

/** The e-mails a store sends its shoppers: written with the change they tell of, per site. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(async () => {
  await ctx.close();
});

const emailsOf = (websiteId: string) =>
  ctx.db
    .selectFrom('emails')
    .selectAll()
    .where('website_id', '=', websiteId)
    .orderBy('created_on')
    .execute();

/** A checkout of two small shirts and a medium one; the order's id. */
async function checkedOut(site: Site, overrides: Record<string, unknown> = {}): Promise<string> {
  const { small, medium } = await shirt(site, 3, overrides);
  const shopper = new Shopper(ctx, site.websiteId);
  seeOther(await shopper.add(small, 2));
  seeOther(await shopper.add(medium, 1));
  const confirmation = seeOther(await shopper.checkout());
  const orderId = /\/checkout\/orders\/([0-9a-f]{24})$/.exec(confirmation)?.[1];
  assert.ok(orderId, confirmation);
  return orderId;
}

const SHIPMENT = {
  shipDate: '2026-01-02T10:00:00Z',
  carrierName: 'UPS',
  service: 'Ground',
  trackingNumber: '1Z999AA10123456784',
  trackingUrl: 'https://track.example/1Z999AA10123456784?a=1&b=2',
};

describe('e-mails', () => {
  test('a checkout writes one order confirmation with the number, lines, totals and address', async () => {
    const site = await ctx.site();
    const orderId = await checkedOut(site);
    const order = (await site.call({ method: 'GET', url: `/1.0/commerce/orders/${orderId}` })).json();
    const [email, ...more] = await emailsOf(site.websiteId);
    assert.equal(more.length, 0);
    assert.ok(email);
    assert.equal(email.kind, 'order_confirmation');
    assert.equal(email.order_id, orderId);
    assert.equal(email.to_address, 'ada@example.com');
    assert.equal(email.status, 'NOT_SENT');
    assert.match(email.subject, new RegExp(`^Test Store: order #${order.orderNumber} confirmed$`));
    for (const body of [email.html, email.text]) {
      assert.ok(body.includes(`#${order.orderNumber}`), body);
      assert.ok(body.includes('Linen shirt (Size: S)'), body);
      assert.ok(body.includes('Linen shirt (Size: M)'), body);
      assert.ok(body.includes('15.00 USD'), body);
      assert.ok(body.includes(`${order.grandTotal.value} USD`), body);
      assert.ok(body.includes('12 Analytical Way'), body);
      assert.ok(body.includes('Test Store'), body);
    }
    assert.match(email.text, /^2 x Linen shirt \(Size: S\) {2}15\.00 USD$/m);
    assert.match(email.text, /^Total: 55\.00 USD$/m);
    // The website's time: its clock's, not the service's.
    assert.equal(email.created_on.getTime() >= Date.parse('2026-01-01T00:00:00Z'), true);
  });

  test('HTML escapes what the store and shopper wrote', async () => {
    const site = await ctx.site();
    await checkedOut(site, { name: '<script>alert(1)</script> & "more"' });
    const [email] = await emailsOf(site.websiteId);
    assert.ok(email);
    assert.ok(!email.html.includes('<script>'), email.html);
    assert.ok(email.html.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;'), email.html);
    assert.ok(email.text.includes('<script>alert(1)</script> & "more"'), email.text);
  });

  test('a fulfillment with shouldSendNotification writes a shipping notice; without, none', async () => {
    const site = await ctx.site();
    const quiet = await checkedOut(site);
    const loud = await checkedOut(site);
    const fulfil = (orderId: string, shouldSendNotification: boolean) =>
      site.call({
        method: 'POST',
        url: `/1.0/commerce/orders/${orderId}/fulfillments`,
        payload: { shouldSendNotification, shipments: [SHIPMENT] },
      });
    assert.equal((await fulfil(quiet, false)).statusCode, 204);
    assert.equal((await fulfil(loud, true)).statusCode, 204);
    const notices = (await emailsOf(site.websiteId)).filter((e) => e.kind === 'shipping_notice');
    assert.equal(notices.length, 1);
    const [notice] = notices;
    assert.equal(notice!.order_id, loud);
    assert.equal(notice!.to_address, 'ada@example.com');
    assert.match(notice!.subject, /has shipped$/);
    for (const body of [notice!.html, notice!.text]) {
      assert.ok(body.includes('1Z999AA10123456784'), body);
      assert.ok(body.includes('UPS'), body);
    }
    assert.ok(notice!.html.includes('href="https://track.example/1Z999AA10123456784?a=1&amp;b=2"'));
    assert.ok(notice!.text.includes(SHIPMENT.trackingUrl));
  });

  test('a change that fails writes no e-mail', async () => {
    const site = await ctx.site();
    const res = await site.call({
      method: 'POST',
      url: `/1.0/commerce/orders/${'a'.repeat(24)}/fulfillments`,
      payload: { shouldSendNotification: true, shipments: [SHIPMENT] },
    });
    assert.equal(res.statusCode, 404, res.body);
    const orderId = await checkedOut(site);
    await cancelOrder(ctx.api, site.websiteId, orderId, { restock: true });
    // Canceled already: refused, and no second notice.
    await assert.rejects(cancelOrder(ctx.api, site.websiteId, orderId, { restock: true }));
    const bad = await site.call({
      method: 'POST',
      url: `/1.0/commerce/orders/${orderId}/fulfillments`,
      payload: { shouldSendNotification: true, shipments: [SHIPMENT] },
    });
    assert.equal(bad.statusCode, 400, bad.body);
    const kinds = (await emailsOf(site.websiteId)).map((e) => e.kind);
    assert.deepEqual(kinds, ['order_confirmation', 'cancellation_notice']);
  });

  test("a cancellation writes a notice to the buyer; another website's e-mails stay its own", async () => {
    const site = await ctx.site();
    const other = await ctx.site();
    const orderId = await checkedOut(site);
    await checkedOut(other);
    await cancelOrder(ctx.api, site.websiteId, orderId, { restock: true });
    const emails = await emailsOf(site.websiteId);
    const notice = emails.find((e) => e.kind === 'cancellation_notice');
    assert.ok(notice);
    assert.equal(notice.to_address, 'ada@example.com');
    assert.match(notice.subject, /canceled$/);
    assert.ok(notice.text.includes('canceled'));
    assert.equal(emails.length, 2);
    assert.equal((await emailsOf(other.websiteId)).length, 1);
  });
});
