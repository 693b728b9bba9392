/**
 * The example app's own tests, on @emporium/testing, as an app developer would write them: no
 * browser, no `npm start`. The owner answers the consent page for the app's real connect flow
 * (its state, its PKCE), the app lists the store's products, reads the orders it hears of,
 * lets the SDK refresh a token the site's later clock expired, and when the app is uninstalled
 * the app hears of it and forgets the store.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startEmporium, type EmporiumInstance, type Site } from '@emporium/testing';
import { startApp, type RecentOrder, type RunningApp } from '../src/app.ts';
import { tokenFile } from '../src/config.ts';

let store: EmporiumInstance;
let site: Site;
let app: RunningApp;
let clientId: string;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-app-test-'));
const dataFile = path.join(folder, 'data.json');

/** A port nobody listens on now, for the app, whose redirect URI must be registered first. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

before(async () => {
  store = await startEmporium();
  site = await store.createSite({ title: 'Pottery Shop' });
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const registered = await store.registerApp({ name: 'Connect App', redirectUri: `${appUrl}/callback` });
  clientId = registered.clientId;
  app = await startApp({
    clientId,
    clientSecret: registered.clientSecret,
    baseUrl: store.url,
    authUrl: store.url,
    port,
    appUrl,
    dataFile,
  });
});

after(async () => {
  await app?.close();
  await store?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

test('the owner connects the store through the app, which then lists its products, and forgets it on uninstall', async () => {
  // The app's own /connect: its authorization URL, and the cookie that ties the callback to it.
  const connect = await fetch(`${app.url}/connect`, { redirect: 'manual' });
  assert.equal(connect.status, 303);
  const cookie = connect.headers.getSetCookie()[0]!.split(';')[0]!;
  const back = await store.approve(connect.headers.get('location')!, site.websiteId);

  const connected = once(app.events, 'connected');
  const callback = await fetch(back, { headers: { cookie }, redirect: 'manual' });
  assert.equal(callback.status, 303, await callback.text());
  assert.deepEqual(await connected, [site.websiteId]);

  await store.trigger('product.create', site.websiteId, { name: 'Stoneware Mug' });
  const listed = await (await fetch(`${app.url}/sites/${site.websiteId}`)).text();
  assert.match(listed, /Stoneware Mug/);

  const forgotten = once(app.events, 'forgotten');
  await store.trigger('extension.uninstall', site.websiteId, { clientId });
  assert.deepEqual(await forgotten, [site.websiteId]);
  assert.equal((await fetch(`${app.url}/sites/${site.websiteId}`)).status, 404);
});

/** A new site the owner connects through the app's own /connect, as in the first test. */
async function connectedSite(title: string): Promise<Site> {
  const made = await store.createSite({ title });
  const connect = await fetch(`${app.url}/connect`, { redirect: 'manual' });
  const cookie = connect.headers.getSetCookie()[0]!.split(';')[0]!;
  const back = await store.approve(connect.headers.get('location')!, made.websiteId);
  const connected = once(app.events, 'connected');
  const callback = await fetch(back, { headers: { cookie }, redirect: 'manual' });
  assert.equal(callback.status, 303, await callback.text());
  assert.deepEqual(await connected, [made.websiteId]);
  return made;
}

/** The token set the SDK keeps for a site, in the app's token file. */
function storedTokens(websiteId: string): {
  accessToken: string;
  accessTokenExpiresAt: number;
  refreshToken?: string;
} {
  return JSON.parse(fs.readFileSync(tokenFile(dataFile), 'utf8'))[websiteId];
}

test('an order placed on the store reaches the app, which reads it through the API', async () => {
  const shop = await connectedSite('Candle Shop');
  await store.trigger('product.create', shop.websiteId, { name: 'Beeswax Candle', sku: 'CANDLE-1' });

  const heard = once(app.events, 'order', { signal: AbortSignal.timeout(15_000) });
  const placed = await store.trigger('order.create', shop.websiteId, { sku: 'CANDLE-1', quantity: 2 });
  assert.equal(placed.notifications.queued, 1, 'the app subscribed to order.create when connected');
  const [websiteId, order] = (await heard) as [string, RecentOrder];
  assert.equal(websiteId, shop.websiteId);
  assert.equal(order.id, placed.changed.orderId);
  assert.match(order.orderNumber, /\S/);
  assert.deepEqual(app.recentOrders(shop.websiteId), [order]);
  const page = await (await fetch(`${app.url}/sites/${shop.websiteId}`)).text();
  assert.ok(page.includes(`Order ${order.orderNumber}`), page);
});

test("past the access token's expiry on the site's clock, the SDK refreshes it and the call succeeds", async () => {
  const shop = await connectedSite('Tea Shop');
  await store.trigger('product.create', shop.websiteId, { name: 'Oolong Tin' });
  const before = storedTokens(shop.websiteId);

  // The SDK's own record says the token has 30 minutes left, so it sends it unrefreshed; on the
  // site's clock it has none, so the API answers 401 and the SDK refreshes once and retries.
  assert.ok(before.accessTokenExpiresAt > Date.now() + 20 * 60_000);
  await store.advanceClock(shop.websiteId, '31m');
  const listed = await fetch(`${app.url}/sites/${shop.websiteId}`);
  const page = await listed.text();
  assert.equal(listed.status, 200);
  assert.match(page, /Oolong Tin/, 'the call refused with 401 was retried with a refreshed token');
  assert.doesNotMatch(page, /Reconnect/);

  const after = storedTokens(shop.websiteId);
  assert.notEqual(after.accessToken, before.accessToken);
  assert.notEqual(after.refreshToken, before.refreshToken, 'each refresh returns a new pair');
});
