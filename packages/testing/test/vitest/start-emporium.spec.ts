import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmporium, type EmporiumInstance } from '@emporium/testing';

/*
 * The package as an app's vitest suite uses it: vitest runs this file in a worker of its own, with
 * its own module loader; the package still loads the server and starts an embedded database.
 */

describe('startEmporium() under vitest', () => {
  let store: EmporiumInstance;
  beforeAll(async () => {
    store = await startEmporium();
  }, 60_000);
  afterAll(() => store?.stop());

  test('an app connected through consent reads the site with its token', async () => {
    const site = await store.createSite({ title: 'Vitest Shop' });
    const app = await store.registerApp();
    const { tokens } = await store.connect(app, site.websiteId, { scopes: ['website.products.read'] });
    const res = await fetch(`${store.url}/1.0/authorization/website`, {
      headers: { authorization: `Bearer ${tokens!.access_token}`, 'user-agent': 'vitest' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: site.websiteId, title: 'Vitest Shop' });
  });

  test("a webhook receiver hears a subscription's test notification, signed", async () => {
    const site = await store.createSite();
    const app = await store.registerApp();
    const { tokens } = await store.connect(app, site.websiteId, { scopes: ['website.orders.read'] });
    const hooks = await store.webhookReceiver();
    const subscription = await hooks.subscribe(tokens!.access_token, ['order.create']);
    const sent = await fetch(
      `${store.url}/1.0/webhook_subscriptions/${subscription.id}/actions/sendTestNotification`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens!.access_token}`,
          'content-type': 'application/json',
          'user-agent': 'vitest',
        },
        body: JSON.stringify({ topic: 'order.create' }),
      },
    );
    expect(sent.status).toBe(200);
    const notification = await hooks.next('order.create');
    expect(notification.subscriptionId).toBe(subscription.id);
    expect(hooks.rejected).toEqual([]);
  });
});
