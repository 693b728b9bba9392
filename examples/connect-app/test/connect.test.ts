/**
 * The example app's own tests, on @emporium/testing, as an app developer would write them: no
 * browser, no `npm start`. The owner answers the consent page for the app's real connect flow
 * (its state, its PKCE), the app lists the store's products, and when the app is uninstalled
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
import { startApp, type RunningApp } from '../src/app.ts';

let store: EmporiumInstance;
let site: Site;
let app: RunningApp;
let clientId: string;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-app-test-'));

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
    dataFile: path.join(folder, 'data.json'),
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
