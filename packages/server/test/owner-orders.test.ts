import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOrder } from '../src/orders/orders.service.ts';
import type { OrderDraft } from '../src/orders/place-order.ts';
import { TestBrowser } from './helpers/browser.ts';
import { createProduct, money, physical, variant } from './helpers/factories.ts';
import { nativeDraft, ORDERS } from './helpers/orders.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp } from './helpers/webhooks.ts';
import { ownerEmailOf } from './helpers/owner-pages.ts';

/** The owner's order pages: the list and its filter, an order, and the fulfill form. */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', queue: true });
});
after(() => ctx.close());

const HOUR = 3600_000;
const START = Date.parse('2026-03-01T09:00:00.000Z');

/** The site's owner, signed in in a browser of its own. */
async function ownerOf(site: Site): Promise<TestBrowser> {
  const email = await ownerEmailOf(ctx, site);
  const browser = new TestBrowser(ctx.app);
  const signedIn = await browser.signIn(email);
  assert.equal(signedIn.statusCode, 303, signedIn.body);
  return browser;
}

/** An order of Emporium's own, placed `hours` after START. */
async function order(site: Site, hours: number, overrides: Partial<OrderDraft> = {}) {
  const draft = nativeDraft(new Date(START + hours * HOUR), overrides);
  return (await createOrder(ctx.api, site.websiteId, draft)).order;
}

/** The order ids a list page links to, in page order. */
const listed = (body: string, websiteId: string) =>
  [...body.matchAll(new RegExp(`href="/sites/${websiteId}/orders/([0-9a-f]{24})"`, 'g'))].map((m) => m[1]);

const olderLink = (body: string) => /href="([^"]+)" rel="next"/.exec(body)?.[1]?.replace(/&amp;/g, '&');

const status = async (site: Site, id: string) => {
  const res = await site.call({ method: 'GET', url: `${ORDERS}/${id}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};

const shipment = {
  carrierName: 'UPS',
  service: 'Ground',
  trackingNumber: '1Z999AA10123456784',
  trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
  shipDate: '2026-03-02',
};

describe('the order list', () => {
  test('newest placed first, 50 a page with a link to older ones, every payment state', async () => {
    const site = await ctx.site();
    const ids: string[] = [];
    // Placed out of order, so the page's order is the placing time's, not the creation's.
    for (let i = 0; i < 52; i++) ids.push((await order(site, (i * 7) % 52)).id);
    const refunded = await order(site, 100, { paymentState: 'REFUNDED', customerEmail: 'back@example.com' });
    const newestFirst = [...ids]
      .map((id, i) => ({ id, hours: (i * 7) % 52 }))
      .sort((a, b) => b.hours - a.hours)
      .map((o) => o.id);
    const browser = await ownerOf(site);

    const first = await browser.get(`/sites/${site.websiteId}/orders`);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(listed(first.body, site.websiteId), [refunded.id, ...newestFirst.slice(0, 49)]);
    assert.match(first.body, /<th scope="col">Customer<\/th>/);
    assert.match(first.body, /back@example\.com/);
    assert.match(first.body, /Refunded/);
    assert.match(first.body, /5\.00 USD/);
    const older = olderLink(first.body);
    assert.ok(older, 'a link to the next page');

    const second = await browser.get(older);
    assert.equal(second.statusCode, 200, second.body);
    assert.deepEqual(listed(second.body, site.websiteId), newestFirst.slice(49));
    assert.equal(olderLink(second.body), undefined, 'the last page links to no older one');

    const forged = await browser.get(`/sites/${site.websiteId}/orders?before=yesterday`);
    assert.equal(forged.statusCode, 400);
  });

  test('filters by fulfillment status; All is every order', async () => {
    const site = await ctx.site();
    const pending = await order(site, 1);
    const fulfilled = await order(site, 2, {
      fulfillmentStatus: 'FULFILLED',
      fulfilledOn: new Date(START + 3 * HOUR),
    });
    const canceled = await order(site, 3, { fulfillmentStatus: 'CANCELED', paymentState: 'REFUNDED' });
    const browser = await ownerOf(site);
    const ids = async (query: string) => {
      const res = await browser.get(`/sites/${site.websiteId}/orders${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return listed(res.body, site.websiteId);
    };
    assert.deepEqual(await ids(''), [canceled.id, fulfilled.id, pending.id]);
    assert.deepEqual(await ids('?status=PENDING'), [pending.id]);
    assert.deepEqual(await ids('?status=FULFILLED'), [fulfilled.id]);
    assert.deepEqual(await ids('?status=CANCELED'), [canceled.id]);
    assert.match(browser.lastPage, /aria-current="page"><strong>Canceled</);
    const unknown = await browser.get(`/sites/${site.websiteId}/orders?status=LOST`);
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /Unknown fulfillment status/);
  });

  test('the site page links to its orders', async () => {
    const site = await ctx.site();
    const browser = await ownerOf(site);
    const res = await browser.get(`/sites/${site.websiteId}`);
    assert.match(res.body, new RegExp(`<a href="/sites/${site.websiteId}/orders">Orders</a>`));
  });
});

describe('an order', () => {
  test('shows its lines with SKU and options, addresses, totals, payment and shipments; every value escaped', async () => {
    const site = await ctx.site();
    const product = await createProduct(
      site,
      physical(site, {
        name: 'Mug <b>bold</b>',
        variantAttributes: ['Glaze'],
        variants: [
          variant('MUG-SAND', {
            attributes: { Glaze: 'Sand & "Sun"' },
            pricing: { basePrice: money('18.00') },
            stock: { quantity: 5, unlimited: false },
          }),
        ],
      }),
    );
    const address = {
      firstName: 'Ada',
      lastName: '<script>alert(1)</script>',
      address1: '12 Analytical Way',
      address2: null,
      city: 'Portland',
      state: 'OR',
      countryCode: 'US',
      postalCode: '97205',
      phone: null,
    };
    const placed = await order(site, 0, {
      customerEmail: 'ada@example.com',
      billingAddress: address,
      shippingAddress: { ...address, address1: '1 Dock Road' },
      lines: [
        {
          lineItemType: 'PHYSICAL_PRODUCT',
          variantId: product.variants[0].id,
          title: null,
          quantity: 2,
          unitPricePaidMinor: 1800,
          customizations: [{ label: 'Engraving', value: 'A.L.' }],
        },
      ],
      shippingLines: [{ method: 'Standard shipping', amountMinor: 500 }],
      subtotalMinor: 3600,
      shippingTotalMinor: 500,
      grandTotalMinor: 4100,
      fulfillmentStatus: 'FULFILLED',
      fulfilledOn: new Date(START + HOUR),
      fulfillments: [
        {
          shipDate: '2026-03-01T12:00:00Z',
          carrierName: 'USPS',
          service: 'Ground Advantage',
          trackingNumber: '9400100000000000000000',
          trackingUrl: 'javascript:alert(1)',
        },
      ],
    });
    const browser = await ownerOf(site);
    const res = await browser.get(`/sites/${site.websiteId}/orders/${placed.id}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.body;
    assert.match(body, new RegExp(`<h1>Order #${placed.orderNumber}</h1>`));
    assert.match(body, /MUG-SAND/);
    assert.match(body, /Mug &lt;b&gt;bold&lt;\/b&gt;/);
    assert.match(body, /Glaze: Sand &amp; &quot;Sun&quot;/);
    assert.match(body, /Engraving: A\.L\./);
    assert.match(body, /<td>2<\/td>\s*<td>18\.00 USD<\/td>/);
    assert.match(body, /Shipping \(Standard shipping\)<\/th>\s*<td>5\.00 USD/);
    assert.match(body, /Total<\/th>\s*<td>41\.00 USD/);
    assert.match(body, /ada@example\.com/);
    assert.match(body, /Ada &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(body, /12 Analytical Way/);
    assert.match(body, /1 Dock Road/);
    assert.match(body, /Payment: <strong>Paid<\/strong>/);
    assert.match(body, /Fulfillment:\s*<strong>Fulfilled<\/strong>/);
    assert.match(body, /Ground Advantage/);
    assert.doesNotMatch(body, /<script>|<b>bold/);
    assert.doesNotMatch(body, /href="javascript:/, 'a tracking URL that is not http(s) is not a link');
    assert.match(body, /<h2 id="fulfill">Add a shipment<\/h2>/);
    assert.match(body, /<label\s*>Carrier <input type="text" name="carrierName"/);
  });
});

describe('fulfilling from the order page', () => {
  test('marks the order FULFILLED with the shipment and queues order.update for a subscribed app, as the API does', async () => {
    const connected = await connectApp(ctx, ['website.orders']);
    const site = connected.site;
    const subscribed = await connected.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: 'https://hooks.example.com/orders',
      topics: ['order.update'],
    });
    assert.equal(subscribed.statusCode, 201, subscribed.body);
    const placed = await order(site, 0);
    const browser = await ownerOf(site);
    const page = await browser.get(`/sites/${site.websiteId}/orders/${placed.id}`);
    assert.match(page.body, /<h2 id="fulfill">Fulfill<\/h2>/);
    assert.match(page.body, /name="shipDate" value="\d{4}-\d\d-\d\d"/, 'the ship date defaults to today');

    const posted = await browser.post(`/sites/${site.websiteId}/orders/${placed.id}/fulfillments`, {
      csrf: browser.csrf,
      ...shipment,
    });
    assert.equal(posted.statusCode, 303, posted.body);
    assert.equal(posted.headers.location, `/sites/${site.websiteId}/orders/${placed.id}?fulfilled=1`);
    const shown = await browser.get(String(posted.headers.location));
    assert.match(shown.body, /role="status">The shipment was saved/);
    assert.match(shown.body, /Fulfillment:\s*<strong>Fulfilled<\/strong>/);
    assert.match(shown.body, /<a href="https:\/\/www\.ups\.com\/track\?tracknum=1Z999AA10123456784">/);

    const api = await status(site, placed.id);
    assert.equal(api.fulfillmentStatus, 'FULFILLED');
    assert.deepEqual(api.fulfillments, [
      {
        shipDate: '2026-03-02T00:00:00Z',
        carrierName: 'UPS',
        service: 'Ground',
        trackingNumber: '1Z999AA10123456784',
        trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
      },
    ]);
    const deliveries = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['topic', 'body', 'status'])
      .where('website_id', '=', site.websiteId)
      .execute();
    assert.deepEqual(
      deliveries.map((d) => [d.topic, JSON.parse(d.body).data, d.status]),
      [['order.update', { orderId: placed.id, update: 'FULFILLED' }, 'PENDING']],
    );
  });

  test('a shipment the service refuses shows the form again with the message and the values; nothing changes', async () => {
    const site = await ctx.site();
    const placed = await order(site, 0);
    const browser = await ownerOf(site);
    const url = `/sites/${site.websiteId}/orders/${placed.id}`;
    await browser.get(url);
    const csrf = browser.csrf;
    const badUrl = await browser.post(`${url}/fulfillments`, { csrf, ...shipment, trackingUrl: 'ftp://x' });
    assert.equal(badUrl.statusCode, 400);
    assert.match(badUrl.body, /role="alert">trackingUrl: must be a valid http or https URL/);
    assert.match(badUrl.body, /name="trackingNumber" value="1Z999AA10123456784"/);
    const blank = await browser.post(`${url}/fulfillments`, { csrf, ...shipment, carrierName: '  ' });
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /carrierName: must not be empty/);
    const long = await browser.post(`${url}/fulfillments`, { csrf, ...shipment, service: 'x'.repeat(101) });
    assert.equal(long.statusCode, 400);
    assert.match(long.body, /service: at most 100 characters/);
    const badDate = await browser.post(`${url}/fulfillments`, { csrf, ...shipment, shipDate: '2026-02-30' });
    assert.equal(badDate.statusCode, 400);
    assert.match(badDate.body, /shipDate: must be an ISO 8601 UTC time/);
    assert.equal((await status(site, placed.id)).fulfillmentStatus, 'PENDING');

    const canceled = await order(site, 1, { fulfillmentStatus: 'CANCELED' });
    const canceledPage = await browser.get(`/sites/${site.websiteId}/orders/${canceled.id}`);
    assert.doesNotMatch(canceledPage.body, /name="carrierName"/, 'no form for a canceled order');
    const refused = await browser.post(`/sites/${site.websiteId}/orders/${canceled.id}/fulfillments`, {
      csrf,
      ...shipment,
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /is CANCELED and cannot be fulfilled/);
  });

  test('without the CSRF token, or with another browser’s: 403, nothing fulfilled', async () => {
    const site = await ctx.site();
    const placed = await order(site, 0);
    const browser = await ownerOf(site);
    const other = await ownerOf(site);
    await other.get(`/sites/${site.websiteId}/orders/${placed.id}`);
    const url = `/sites/${site.websiteId}/orders/${placed.id}/fulfillments`;
    const missing = await browser.post(url, shipment);
    assert.equal(missing.statusCode, 403);
    const foreign = await browser.post(url, { csrf: other.csrf, ...shipment });
    assert.equal(foreign.statusCode, 403);
    assert.equal((await status(site, placed.id)).fulfillmentStatus, 'PENDING');
  });
});

describe('ownership', () => {
  test('another owner’s site or order is 404, also under one’s own site; signed out, the pages ask to sign in', async () => {
    const site = await ctx.site();
    const placed = await order(site, 0);
    const stranger = await ctx.site();
    const browser = await ownerOf(stranger);
    const theirs = `/sites/${site.websiteId}/orders`;
    assert.equal((await browser.get(theirs)).statusCode, 404);
    assert.equal((await browser.get(`${theirs}/${placed.id}`)).statusCode, 404);
    const underOwn = `/sites/${stranger.websiteId}/orders/${placed.id}`;
    assert.equal((await browser.get(underOwn)).statusCode, 404);
    assert.equal((await browser.get(`/sites/${stranger.websiteId}/orders/not-an-id`)).statusCode, 404);
    await browser.get(`/sites/${stranger.websiteId}/orders`);
    const csrf = browser.csrf;
    assert.equal(
      (await browser.post(`${theirs}/${placed.id}/fulfillments`, { csrf, ...shipment })).statusCode,
      404,
    );
    assert.equal((await browser.post(`${underOwn}/fulfillments`, { csrf, ...shipment })).statusCode, 404);
    assert.equal((await status(site, placed.id)).fulfillmentStatus, 'PENDING');

    const anonymous = new TestBrowser(ctx.app);
    const redirected = await anonymous.get(`${theirs}/${placed.id}`);
    assert.equal(redirected.statusCode, 303);
    assert.match(String(redirected.headers.location), /^\/login\?next=/);
  });
});
