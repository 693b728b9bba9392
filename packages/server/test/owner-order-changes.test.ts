import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelOrder } from '../src/orders/cancel-order.ts';
import { changeOrderEmail } from '../src/orders/change-email.ts';
import { markOrderPending } from '../src/orders/mark-pending.ts';
import { createOrder } from '../src/orders/orders.service.ts';
import type { OrderDraft } from '../src/orders/place-order.ts';
import type { ShipmentJson } from '../src/shared/order-model.ts';
import { apiOrder, documentOf, nativeDraft } from './helpers/orders.ts';
import { listedOrders, signedInOwner } from './helpers/owner-pages.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';

/**
 * The order page's "Mark as pending" and "Buyer's e-mail" forms: what the owner sees, what the
 * API then answers, the notification apps get, and the refusals, which change nothing.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', queue: true });
});
after(() => ctx.close());

const START = Date.parse('2026-03-01T09:00:00.000Z');

const SHIPPED: ShipmentJson = {
  shipDate: '2026-03-02T00:00:00.000Z',
  carrierName: 'UPS',
  service: 'Ground',
  trackingNumber: '1Z999AA10123456784',
  trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
};

/** An order of ada@example.com (one custom line, so no stock involved), placed at START. */
async function order(site: Site, overrides: Partial<OrderDraft> = {}) {
  const draft = nativeDraft(new Date(START), { customerEmail: 'ada@example.com', ...overrides });
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

/** A FULFILLED order with one shipment. */
const fulfilledOrder = (site: Site) =>
  order(site, {
    fulfillmentStatus: 'FULFILLED',
    fulfilledOn: new Date(START + 3600_000),
    fulfillments: [SHIPPED],
  });

/** The order.update notifications queued for the site's app, oldest first. */
const updates = (site: Site) =>
  ctx.db
    .selectFrom('webhook_deliveries')
    .select(['topic', 'body'])
    .where('website_id', '=', site.websiteId)
    .where('topic', '=', 'order.update')
    .orderBy('created_on')
    .execute()
    .then((rows) => rows.map((d) => JSON.parse(d.body).data));

/** A site whose app listens to order updates; the site's owner signed in. */
async function subscribedSite() {
  const connected = await connectApp(ctx, ['website.orders']);
  const subscribed = await connected.call('POST', '/1.0/webhook_subscriptions', {
    endpointUrl: 'https://hooks.example.com/orders',
    topics: ['order.update'],
  });
  assert.equal(subscribed.statusCode, 201, subscribed.body);
  return { site: connected.site, browser: await signedInOwner(ctx, connected.site) };
}

const alerts = (body: string) => [...body.matchAll(/role="alert">([^<]*)</g)].map((m) => m[1]);

/** Holds the order's row lock, as another change of it would, until `release` is called. */
async function holdOrder(orderId: string) {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked = () => {};
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holder = ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('orders').select('id').where('id', '=', orderId).forUpdate().execute();
    locked();
    await held;
  });
  await lockTaken;
  return async () => {
    release();
    await holder;
  };
}

describe('marking an order pending from its page', () => {
  test('a FULFILLED order: PENDING, fulfilledOn null, its shipments kept, re-stamped, order.update MARKED_PENDING queued', async () => {
    const { site, browser } = await subscribedSite();
    const placed = await fulfilledOrder(site);
    const before = await apiOrder(site, placed.id);
    const documentBefore = await documentOf(site, placed.id);
    assert.equal(before.fulfillmentStatus, 'FULFILLED');
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    const page = await browser.get(url);
    assert.match(page.body, /<h2 id="mark-pending">Mark as pending<\/h2>/);
    assert.match(page.body, new RegExp(`action="${url}/mark-pending"`));
    assert.match(
      page.body,
      /name="confirmPending" value="yes" required \/>\s+Yes, mark order\s+#\d+\s+as\s+pending/,
    );

    const posted = await browser.post(`${url}/mark-pending`, { csrf: browser.csrf, confirmPending: 'yes' });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal(posted.headers.location, `${url}?pending=1`);
    const shown = await browser.get(String(posted.headers.location));
    assert.match(shown.body, /role="status">The order was marked pending\./);
    assert.match(shown.body, /Fulfillment:\s*<strong>Pending<\/strong>/);
    assert.doesNotMatch(shown.body, /\/mark-pending"/, 'a pending order offers no "Mark as pending"');
    assert.match(shown.body, /<h2 id="fulfill">Fulfill<\/h2>/);
    assert.match(shown.body, /<h2 id="cancel">Cancel the order<\/h2>[\s\S]*name="confirm" value="yes"/);
    assert.match(shown.body, /1Z999AA10123456784/, 'the recorded shipment is still listed');

    const after = await apiOrder(site, placed.id);
    assert.equal(after.fulfillmentStatus, 'PENDING');
    assert.equal(after.fulfilledOn, null);
    assert.deepEqual(after.fulfillments, before.fulfillments);
    assert.ok(after.modifiedOn > before.modifiedOn, 'modifiedOn moves on');
    assert.deepEqual(
      {
        ...after,
        fulfillmentStatus: 'FULFILLED',
        fulfilledOn: before.fulfilledOn,
        modifiedOn: before.modifiedOn,
      },
      before,
      'nothing else changes',
    );
    assert.deepEqual(await documentOf(site, placed.id), documentBefore, 'the transaction is untouched');
    assert.deepEqual(await updates(site), [{ orderId: placed.id, update: 'MARKED_PENDING' }]);
    const pendingList = await browser.get(`/sites/${site.websiteId}/orders?status=PENDING`);
    assert.deepEqual(listedOrders(pendingList.body, site.websiteId), [placed.id]);

    // Shipped again: a new fulfilledOn (the site's time then), the new shipment after the first.
    const shippedAfter = ctx.clock.now().getTime();
    const fulfilled = await browser.post(`${url}/fulfillments`, {
      csrf: browser.csrf,
      carrierName: 'USPS',
      service: 'Priority',
      trackingNumber: '9400100000000000000000',
      trackingUrl: '',
      shipDate: '2026-03-05',
    });
    assert.equal(fulfilled.statusCode, 303, fulfilled.body);
    const again = await apiOrder(site, placed.id);
    assert.equal(again.fulfillmentStatus, 'FULFILLED');
    const fulfilledOn = Date.parse(again.fulfilledOn);
    assert.ok(fulfilledOn > shippedAfter && fulfilledOn < ctx.clock.now().getTime(), again.fulfilledOn);
    assert.deepEqual(
      again.fulfillments.map((s: ShipmentJson) => s.trackingNumber),
      ['1Z999AA10123456784', '9400100000000000000000'],
    );
    assert.deepEqual(
      (await updates(site)).map((d) => d.update),
      ['MARKED_PENDING', 'FULFILLED'],
    );
  });

  test('refused with the reason beside the form and nothing changed: PENDING, CANCELED, unconfirmed, no CSRF', async () => {
    const { site, browser } = await subscribedSite();
    const pending = await order(site);
    const canceled = await order(site);
    await cancelOrder(ctx.api, site.websiteId, canceled.id, { restock: false });
    const fulfilled = await fulfilledOrder(site);
    const urlOf = (id: string) => `/sites/${site.websiteId}/orders/${id}`;
    for (const id of [pending.id, canceled.id]) {
      const page = await browser.get(urlOf(id));
      assert.doesNotMatch(page.body, /\/mark-pending"/, 'only a fulfilled order offers "Mark as pending"');
      assert.doesNotMatch(page.body, /Mark as pending/);
    }
    const csrf = browser.csrf;
    const snapshot = async () => ({
      orders: await Promise.all([pending, canceled, fulfilled].map((o) => apiOrder(site, o.id))),
      updates: await updates(site),
    });
    const start = await snapshot();

    const already = await browser.post(`${urlOf(pending.id)}/mark-pending`, { csrf, confirmPending: 'yes' });
    assert.equal(already.statusCode, 400);
    assert.deepEqual(alerts(already.body), [`order ${pending.id} is already PENDING; nothing changed`]);
    assert.match(already.body, /<h2 id="mark-pending">Mark as pending<\/h2>\s*<p class="notice error"/);
    assert.match(already.body, /Only a fulfilled order can be marked pending\./);

    const wasCanceled = await browser.post(`${urlOf(canceled.id)}/mark-pending`, {
      csrf,
      confirmPending: 'yes',
    });
    assert.equal(wasCanceled.statusCode, 400);
    assert.deepEqual(alerts(wasCanceled.body), [
      `order ${canceled.id} is CANCELED and cannot be marked pending: only a FULFILLED order can`,
    ]);

    // The cancel form's tick does not confirm this one.
    const unconfirmed = await browser.post(`${urlOf(fulfilled.id)}/mark-pending`, { csrf, confirm: 'yes' });
    assert.equal(unconfirmed.statusCode, 400);
    assert.deepEqual(alerts(unconfirmed.body), [
      `Tick &quot;Yes, mark order #${fulfilled.orderNumber} as pending&quot; to confirm; nothing was changed.`,
    ]);
    assert.match(unconfirmed.body, /action="[^"]*\/mark-pending"/, 'the form is there to tick');

    const noCsrf = await browser.post(`${urlOf(fulfilled.id)}/mark-pending`, { confirmPending: 'yes' });
    assert.equal(noCsrf.statusCode, 403);
    assert.deepEqual(await snapshot(), start, 'the refusals changed nothing and notified no one');
  });

  test('another owner’s order is 404 and stays FULFILLED', async () => {
    const site = await ctx.site();
    const placed = await fulfilledOrder(site);
    const stranger = await ctx.site();
    const browser = await signedInOwner(ctx, stranger);
    await browser.get(`/sites/${stranger.websiteId}/orders`);
    const csrf = browser.csrf;
    for (const websiteId of [site.websiteId, stranger.websiteId]) {
      const res = await browser.post(`/sites/${websiteId}/orders/${placed.id}/mark-pending`, {
        csrf,
        confirmPending: 'yes',
      });
      assert.equal(res.statusCode, 404);
    }
    assert.equal((await apiOrder(site, placed.id)).fulfillmentStatus, 'FULFILLED');
  });
});

describe("changing the buyer's e-mail from the order's page", () => {
  test('the order and its transaction take the trimmed address, both re-stamped, order.update EMAIL_UPDATED queued; the buyer stays the same contact', async () => {
    const { site, browser } = await subscribedSite();
    const placed = await order(site);
    const before = await apiOrder(site, placed.id);
    const documentBefore = await documentOf(site, placed.id);
    assert.equal(documentBefore.customerEmail, 'ada@example.com');
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    const page = await browser.get(url);
    assert.match(page.body, /<h3 id="email">Buyer’s e-mail<\/h3>/);
    assert.match(page.body, new RegExp(`action="${url}/email"`));
    assert.match(
      page.body,
      /<input type="email" name="email" value="ada@example.com" maxlength="254" required/,
    );

    const posted = await browser.post(`${url}/email`, { csrf: browser.csrf, email: '  grace@example.com ' });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal(posted.headers.location, `${url}?email=1`);
    const shown = await browser.get(String(posted.headers.location));
    assert.match(shown.body, /role="status">The buyer’s e-mail was changed\./);
    assert.match(shown.body, /<h2>Customer<\/h2>\s*<p>grace@example.com<\/p>/);
    assert.match(shown.body, /name="email" value="grace@example.com"/);

    const after = await apiOrder(site, placed.id);
    assert.equal(after.customerEmail, 'grace@example.com');
    assert.equal(after.customerId, before.customerId, 'the order keeps its buyer');
    assert.ok(after.modifiedOn > before.modifiedOn);
    assert.deepEqual(
      { ...after, customerEmail: before.customerEmail, modifiedOn: before.modifiedOn },
      before,
      'nothing else changes',
    );
    const document = await documentOf(site, placed.id);
    assert.equal(document.customerEmail, 'grace@example.com');
    assert.ok(document.modifiedOn > documentBefore.modifiedOn);
    assert.deepEqual(Object.keys(document), Object.keys(documentBefore), 'the fields keep their order');
    assert.deepEqual(
      { ...document, customerEmail: documentBefore.customerEmail, modifiedOn: documentBefore.modifiedOn },
      documentBefore,
    );
    assert.deepEqual(await updates(site), [{ orderId: placed.id, update: 'EMAIL_UPDATED' }]);

    const profile = await site.call({ method: 'GET', url: `/1.0/profiles/${before.customerId}` });
    assert.equal(profile.statusCode, 200, profile.body);
    assert.equal(profile.json().profiles[0].email, 'ada@example.com', "the buyer's contact keeps its e-mail");
    const found = await browser.get(`/sites/${site.websiteId}/orders?q=grace%40example`);
    assert.deepEqual(listedOrders(found.body, site.websiteId), [placed.id]);
    const old = await browser.get(`/sites/${site.websiteId}/orders?q=ada%40example`);
    assert.deepEqual(listedOrders(old.body, site.websiteId), []);
  });

  test('any status: a FULFILLED and a CANCELED order take a new address; an order without one gets its first', async () => {
    const { site, browser } = await subscribedSite();
    const fulfilled = await fulfilledOrder(site);
    const canceled = await order(site);
    await cancelOrder(ctx.api, site.websiteId, canceled.id, { restock: false });
    const anonymous = await order(site, { customerEmail: null });
    const anonymousPage = await browser.get(`/sites/${site.websiteId}/orders/${anonymous.id}`);
    assert.match(anonymousPage.body, /No e-mail given\./);
    assert.match(anonymousPage.body, /name="email" value="" maxlength/);
    const csrf = browser.csrf;
    for (const [placed, status] of [
      [fulfilled, 'FULFILLED'],
      [canceled, 'CANCELED'],
      [anonymous, 'PENDING'],
    ] as const) {
      const url = `/sites/${site.websiteId}/orders/${placed.id}`;
      const posted = await browser.post(`${url}/email`, { csrf, email: 'lin@example.org' });
      assert.equal(posted.statusCode, 303, posted.body);
      const now = await apiOrder(site, placed.id);
      assert.equal(now.customerEmail, 'lin@example.org');
      assert.equal(now.fulfillmentStatus, status, 'the status stays');
      assert.equal((await documentOf(site, placed.id)).customerEmail, 'lin@example.org');
    }
    assert.equal((await apiOrder(site, anonymous.id)).customerId, null, 'no contact is made for it');
    assert.deepEqual(
      (await updates(site)).filter((d) => d.update === 'EMAIL_UPDATED').map((d) => d.orderId),
      [fulfilled.id, canceled.id, anonymous.id],
    );
  });

  test('refused with the message beside the form and nothing changed: not an address, the same one, empty, too long, no CSRF', async () => {
    const { site, browser } = await subscribedSite();
    const placed = await order(site);
    const canceled = await order(site);
    await cancelOrder(ctx.api, site.websiteId, canceled.id, { restock: false });
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    await browser.get(url);
    const csrf = browser.csrf;
    const snapshot = async () => ({
      orders: [await apiOrder(site, placed.id), await apiOrder(site, canceled.id)],
      documents: [await documentOf(site, placed.id), await documentOf(site, canceled.id)],
      updates: await updates(site),
    });
    const start = await snapshot();

    const invalid = await browser.post(`${url}/email`, { csrf, email: 'ada at example.com' });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(alerts(invalid.body), ['E-mail address: not an e-mail address']);
    assert.match(invalid.body, /<h3 id="email">Buyer’s e-mail<\/h3>\s*<p class="notice error" role="alert">/);
    assert.match(invalid.body, /name="email" value="ada at example.com"/, 'the form keeps what was typed');
    assert.match(invalid.body, /<h2>Customer<\/h2>\s*<p>ada@example.com<\/p>/);

    const same = await browser.post(`${url}/email`, { csrf, email: ' ada@example.com' });
    assert.equal(same.statusCode, 400);
    assert.deepEqual(alerts(same.body), [
      'E-mail address: the order&#39;s e-mail is already ada@example.com; nothing changed',
    ]);

    const empty = await browser.post(`${url}/email`, { csrf, email: '   ' });
    assert.equal(empty.statusCode, 400);
    assert.deepEqual(alerts(empty.body), ['E-mail address: not an e-mail address']);

    const long = await browser.post(`${url}/email`, { csrf, email: `${'a'.repeat(250)}@example.com` });
    assert.equal(long.statusCode, 400);
    assert.deepEqual(alerts(long.body), ['E-mail address: at most 254 characters']);

    // A canceled order's page shows the e-mail form's refusal once, beside that form.
    const canceledUrl = `/sites/${site.websiteId}/orders/${canceled.id}`;
    const onCanceled = await browser.post(`${canceledUrl}/email`, { csrf, email: 'nobody@' });
    assert.equal(onCanceled.statusCode, 400);
    assert.deepEqual(alerts(onCanceled.body), ['E-mail address: not an e-mail address']);
    assert.match(onCanceled.body, /This order was canceled; it cannot be shipped\./);

    const noCsrf = await browser.post(`${url}/email`, { email: 'grace@example.com' });
    assert.equal(noCsrf.statusCode, 403);
    const stranger = await ctx.site();
    const strangerBrowser = await signedInOwner(ctx, stranger);
    await strangerBrowser.get(`/sites/${stranger.websiteId}/orders`);
    const notTheirs = await strangerBrowser.post(`${url}/email`, {
      csrf: strangerBrowser.csrf,
      email: 'grace@example.com',
    });
    assert.equal(notTheirs.statusCode, 404);
    assert.deepEqual(await snapshot(), start, 'the refusals changed nothing and notified no one');
  });
});

describe('markOrderPending and changeOrderEmail', () => {
  test('an order another transaction holds is a 409 CONCURRENT_MODIFICATION at once, and stays as it was', async () => {
    const site = await ctx.site();
    const placed = await fulfilledOrder(site);
    const release = await holdOrder(placed.id);
    try {
      await assert.rejects(markOrderPending(ctx.api, site.websiteId, placed.id), {
        name: 'Conflict',
        subtype: 'CONCURRENT_MODIFICATION',
      });
      await assert.rejects(changeOrderEmail(ctx.api, site.websiteId, placed.id, 'grace@example.com'), {
        name: 'Conflict',
        subtype: 'CONCURRENT_MODIFICATION',
      });
    } finally {
      await release();
    }
    const now = await apiOrder(site, placed.id);
    assert.equal(now.fulfillmentStatus, 'FULFILLED');
    assert.equal(now.customerEmail, 'ada@example.com');
  });

  test('the page says to retry when another change of the order runs', async () => {
    const { site, browser } = await subscribedSite();
    const placed = await fulfilledOrder(site);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    await browser.get(url);
    const csrf = browser.csrf;
    const release = await holdOrder(placed.id);
    try {
      const pending = await browser.post(`${url}/mark-pending`, { csrf, confirmPending: 'yes' });
      assert.equal(pending.statusCode, 409);
      assert.match(
        pending.body,
        /role="alert">a request using the provided Order is already in progress; retry/,
      );
      const email = await browser.post(`${url}/email`, { csrf, email: 'grace@example.com' });
      assert.equal(email.statusCode, 409);
      assert.match(
        email.body,
        /role="alert">a request using the provided Order is already in progress; retry/,
      );
    } finally {
      await release();
    }
    assert.deepEqual(await updates(site), []);
  });

  test('an id that is not an order id is a 400; an unknown one a 404', async () => {
    const site = await ctx.site();
    await assert.rejects(markOrderPending(ctx.api, site.websiteId, 'nope'), { status: 400 });
    await assert.rejects(markOrderPending(ctx.api, site.websiteId, 'a'.repeat(24)), { status: 404 });
    await assert.rejects(changeOrderEmail(ctx.api, site.websiteId, 'nope', 'a@example.com'), { status: 400 });
    await assert.rejects(changeOrderEmail(ctx.api, site.websiteId, 'a'.repeat(24), 'a@example.com'), {
      status: 404,
    });
  });
});

describe('two "Mark as pending" at once', () => {
  test('one wins, the other is refused with its reason (409 or already PENDING), and apps hear of it once', async () => {
    const { site, browser } = await subscribedSite();
    for (let round = 0; round < 5; round++) {
      const placed = await fulfilledOrder(site);
      const url = `/sites/${site.websiteId}/orders/${placed.id}`;
      await browser.get(url);
      const csrf = browser.csrf;
      const answers = await Promise.all([
        browser.post(`${url}/mark-pending`, { csrf, confirmPending: 'yes' }),
        browser.post(`${url}/mark-pending`, { csrf, confirmPending: 'yes' }),
      ]);
      const statuses = answers.map((a) => a.statusCode).sort();
      assert.equal(statuses[0], 303, `round ${round}: one wins`);
      const loser = answers.find((a) => a.statusCode !== 303)!;
      assert.ok(
        [400, 409].includes(loser.statusCode),
        `round ${round}: the other is refused (${loser.statusCode})`,
      );
      assert.match(
        alerts(loser.body)[0] ?? '',
        /already in progress; retry|is already PENDING; nothing changed/,
        'the refusal says why',
      );
      const now = await apiOrder(site, placed.id);
      assert.equal(now.fulfillmentStatus, 'PENDING');
      assert.equal(now.fulfilledOn, null);
      const notified = (await updates(site)).filter((d) => d.orderId === placed.id);
      assert.deepEqual(
        notified,
        [{ orderId: placed.id, update: 'MARKED_PENDING' }],
        `round ${round}: one webhook`,
      );
    }
  });
});
