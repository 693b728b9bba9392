import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import type { Scope } from '../../src/shared/scopes.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { connectedAppToken } from '../helpers/app-token.ts';
import { freshDatabase } from '../helpers/database.ts';
import { multipartFile } from '../helpers/factories.ts';
import { OwnerBrowser } from '../helpers/owner-http.ts';
import { until } from '../helpers/proc.ts';
import {
  request,
  startServer,
  startWorker,
  type Response,
  type Server,
  type Worker,
} from '../helpers/process.ts';
import { S3_CREDENTIALS, TEST_BUCKET, TestS3Server } from '../helpers/s3-server.ts';
import { TempFolders } from '../helpers/temp-folders.ts';
import { assertSigned, Receiver } from '../helpers/webhooks.ts';

/**
 * A deployment of several processes as on several machines: two `emporium serve` instances and one
 * `emporium worker` on one database of the test run's PostgreSQL server, sharing Redis for the
 * rate-limit counts and an S3-compatible store for the image files, each with a DATA_DIR of its
 * own. The instances run no workers (IMAGE_WORKERS=0, WEBHOOK_WORKERS=0), so every image and every
 * notification is the worker's. Requests alternate between the instances; the owner works on the
 * first one's pages.
 */

/**
 * A Redis database of this test's own, so that the per-address counts (sign-in, token endpoint)
 * stay away from other users of the server; the per-credential counts are keyed by the ids of
 * credentials this run makes, so parallel runs never share one.
 */
const REDIS_URL = 'redis://127.0.0.1:6379/9';
/** Small, so the shared count is reached in a second; each test uses keys of its own below it. */
const LIMIT = 100;

const folders = new TempFolders();
let databaseUrl: string;
let database: DatabaseHandle;
let a: Server;
let b: Server;
let worker: Worker;
/** Every process started, to stop by its pid in `after`. */
const started: Worker[] = [];
let owner: OwnerBrowser;
let websiteId: string;
let storePageId: string;
let receiver: Receiver;
let s3: TestS3Server | undefined;

/** Fails the whole file, with the reason, when Redis is not there: the machines and CI have it. */
async function assertRedisReachable(): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null });
  let cause: Error | undefined;
  redis.on('error', (error: Error) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `Redis is not reachable at ${REDIS_URL} (${(cause ?? (error as Error)).message}): the multi-instance test needs it, as the instances share their rate-limit counts there`,
      { cause: error },
    );
  } finally {
    redis.disconnect();
  }
}

before(async () => {
  await assertRedisReachable();
  databaseUrl = await freshDatabase();
  database = openDatabase(databaseUrl, { max: 1 });
  receiver = await new Receiver().start();
  s3 = await TestS3Server.start();
  const env = {
    DATABASE_URL: databaseUrl,
    IMAGE_STORAGE_URL: `s3://${TEST_BUCKET}/multi-${randomBytes(4).toString('hex')}`,
    IMAGE_STORAGE_ENDPOINT: s3.endpoint,
    IMAGE_STORAGE_FORCE_PATH_STYLE: 'true',
    ...S3_CREDENTIALS,
    REDIS_URL,
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    SIGN_IN_PER_MINUTE: '1000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  // A folder each: nothing but the store may carry an image from one process to another.
  const own = () => ({ DATA_DIR: folders.make('emporium-multi-') });
  const instance = { ...env, IMAGE_WORKERS: '0', WEBHOOK_WORKERS: '0' };
  // The first makes the demo site; the others start beside it, on the same database.
  // All are awaited, so that `after` stops every one that runs even when another failed to start.
  const starts = await Promise.allSettled([
    startServer({ ...instance, ...own() }),
    startServer({ ...instance, ...own(), DEMO_SITE: 'false' }),
    // Two delivery pollers, so that a notification handed out twice would be posted twice.
    startWorker({ ...env, ...own(), DEMO_SITE: 'false', IMAGE_WORKERS: '1', WEBHOOK_WORKERS: '2' }),
  ]);
  started.push(...starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : [])));
  const failed = starts.find((start) => start.status === 'rejected');
  if (failed) throw failed.reason;
  [a, b, worker] = started as [Server, Server, Worker];
  const out = a.stdout();
  const [, email, password] = /owner +(\S+)\n +password +(\S+)/.exec(out) ?? [];
  websiteId = /website +([0-9a-f]{24})/.exec(out)?.[1] ?? '';
  storePageId = /store page ([0-9a-f]{24})/.exec(out)?.[1] ?? '';
  assert.ok(email && password && websiteId && storePageId, out);
  owner = new OwnerBrowser(a.baseUrl);
  await owner.signIn(email, password);
});

after(async () => {
  for (const { child, stop } of started) if (child.exitCode === null && !child.signalCode) await stop();
  await receiver?.stop();
  await s3?.close();
  await database?.close();
  folders.removeAll();
});

/** API calls with one credential; the instance is chosen by the caller. */
function caller(credential: string) {
  const headers = { authorization: `Bearer ${credential}`, 'user-agent': 'multi-instance-test' };
  return (server: Server, method: string, url: string, body?: object | Buffer, extra = {}) =>
    request(server.baseUrl, method, url, { ...headers, ...extra }, body);
}

async function apiKey(name: string, scopes: Scope[] = ['website.products']) {
  return caller(await owner.createApiKey(websiteId, name, scopes));
}

const product = (name: string) => ({
  type: 'PHYSICAL',
  storePageId,
  name,
  variants: [
    {
      sku: name.toUpperCase().replace(/\W+/g, '-'),
      pricing: { basePrice: { currency: 'USD', value: '5.00' } },
    },
  ],
});

/**
 * Asks until `done` holds, and fails unless an answer that holds came within `limitMs` of the call:
 * another instance learns of a change from the database's notice, which this process cannot await.
 */
async function within(
  limitMs: number,
  ask: () => Promise<Response>,
  done: (res: Response) => boolean,
  what: string,
): Promise<void> {
  const start = performance.now();
  for (;;) {
    const res = await ask();
    const elapsed = performance.now() - start;
    if (elapsed > limitMs || done(res)) {
      const answer = `${res.status} ${res.body.slice(0, 300)}`;
      assert.ok(
        elapsed <= limitMs,
        `${what}: not within ${limitMs} ms (${Math.round(elapsed)} ms: ${answer})`,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Every product of the website in the 1.1 list, page by page (bounded). */
async function listed(
  call: ReturnType<typeof caller>,
  server: Server,
): Promise<{ id: string; name: string }[]> {
  const all: { id: string; name: string }[] = [];
  let url: string | null = '/1.1/commerce/products';
  for (let page = 0; url && page < 20; page++) {
    const res = await call(server, 'GET', url);
    assert.equal(res.status, 200, res.body);
    const body = JSON.parse(res.body);
    all.push(...body.products);
    url = body.pagination.nextPageCursor
      ? `/1.1/commerce/products?cursor=${body.pagination.nextPageCursor}`
      : null;
  }
  return all;
}

test('a product created through one instance is read through the other, and so is its update the other way', async () => {
  const call = await apiKey('Writes');
  const created = await call(a, 'POST', '/1.1/commerce/products', product('Shared Mug'));
  assert.equal(created.status, 201, created.body);
  const id = JSON.parse(created.body).id;
  const byId = (server: Server) => call(server, 'GET', `/1.1/commerce/products/${id}`);
  const named = (res: Response, name: string) =>
    res.status === 200 && JSON.parse(res.body).products[0]?.name === name;

  await within(
    1000,
    () => byId(b),
    (res) => named(res, 'Shared Mug'),
    'the new product by id on B',
  );
  assert.ok((await listed(call, b)).some((p) => p.id === id && p.name === 'Shared Mug'));
  // Both instances have now cached the product and the list: the update must reach the other's caches.
  assert.ok(named(await byId(a), 'Shared Mug'));
  assert.ok((await listed(call, a)).some((p) => p.id === id));

  const updated = await call(b, 'POST', `/1.1/commerce/products/${id}`, { name: 'Shared Mug, blue' });
  assert.equal(updated.status, 200, updated.body);
  await within(
    1000,
    () => byId(a),
    (res) => named(res, 'Shared Mug, blue'),
    'the update by id on A',
  );
  const onA = (await listed(call, a)).filter((p) => p.id === id);
  assert.deepEqual(
    onA.map((p) => p.name),
    ['Shared Mug, blue'],
  );
});

test('an API key revoked on one instance is refused by the other within a second', async () => {
  const call = await apiKey('Revoked');
  // The other instance has the key in its cache: the revocation must reach it there.
  assert.equal((await call(b, 'GET', '/1.1/commerce/products')).status, 200);
  await owner.revokeApiKey(websiteId, 'Revoked');
  await within(
    1000,
    () => call(b, 'GET', '/1.1/commerce/products'),
    (res) => res.status === 401,
    'the revoked key refused on B',
  );
  const refused = await call(b, 'GET', '/1.1/commerce/products');
  assert.equal(refused.status, 401);
  assert.equal(JSON.parse(refused.body).type, 'AUTHORIZATION_ERROR');
});

test("an app's access revoked on one instance is refused by the other within a second", async () => {
  const { clientId, accessToken } = await connectedAppToken(databaseUrl, b.baseUrl, {
    websiteId,
    name: 'Revoked app',
    scopes: ['website.products.read'],
  });
  const call = caller(accessToken);
  assert.equal((await call(b, 'GET', '/1.1/commerce/products')).status, 200);
  await owner.revokeApp(websiteId, clientId);
  await within(
    1000,
    () => call(b, 'GET', '/1.1/commerce/products'),
    (res) => res.status === 401,
    "the revoked app's token refused on B",
  );
});

test('rate-limit counts are shared: requests alternating between the instances get 429 once both together reach the limit', async () => {
  const call = await apiKey('Counted', ['website.products.read']);
  const servers = [a, b];
  for (let i = 0; i < LIMIT; i++) {
    const res = await call(servers[i % 2]!, 'GET', '/1.1/commerce/products');
    assert.equal(res.status, 200, `request ${i + 1}: ${res.body}`);
    // Each instance alone has seen only half of them: the count it reports is of both.
    assert.equal(res.headers['ratelimit-remaining'], String(LIMIT - 1 - i), `request ${i + 1}`);
  }
  for (const server of servers) {
    const res = await call(server, 'GET', '/1.1/commerce/products');
    assert.equal(res.status, 429, res.body);
    assert.equal(JSON.parse(res.body).type, 'TOO_MANY_REQUESTS');
    assert.ok(Number(res.headers['retry-after']) > 0);
  }
});

test('each notification is delivered once, by the worker process, whichever instance queued it', async () => {
  const app = await connectedAppToken(databaseUrl, a.baseUrl, {
    websiteId,
    name: 'Listener',
    scopes: ['website.products.read'],
  });
  const listener = caller(app.accessToken);
  const subscribed = await listener(b, 'POST', '/1.0/webhook_subscriptions', {
    endpointUrl: receiver.url,
    topics: ['product.create'],
  });
  assert.equal(subscribed.status, 201, subscribed.body);
  const subscription = JSON.parse(subscribed.body);

  const call = await apiKey('Notified');
  const created: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await call([a, b][i % 2]!, 'POST', '/1.1/commerce/products', product(`Notified ${i}`));
    assert.equal(res.status, 201, res.body);
    created.push(JSON.parse(res.body).id);
  }
  await receiver.got(created.length);
  // Done once no delivery is left that could be attempted again: each is leased before its post,
  // so nothing more can arrive after this.
  const settled = () =>
    database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts'])
      .where('subscription_id', '=', subscription.id)
      .execute();
  const deliveries = await until(
    settled,
    (rows) => rows.length === created.length && rows.every((d) => d.status === 'DELIVERED'),
    10_000,
  );
  assert.deepEqual(
    deliveries.map((d) => [d.status, d.attempts]),
    created.map(() => ['DELIVERED', 1]),
  );
  const got = receiver.received.filter((r) => r.json.subscriptionId === subscription.id);
  assert.equal(got.length, created.length);
  assert.equal(new Set(got.map((r) => r.json.id)).size, created.length);
  assert.deepEqual(
    got.map((r) => (r.json.data as { productId: string }).productId).sort(),
    [...created].sort(),
  );
  for (const r of got) assertSigned(r, subscription.secret);
  const removed = await listener(a, 'DELETE', `/1.0/webhook_subscriptions/${subscription.id}`);
  assert.equal(removed.status, 204, removed.body);
});

test('an image uploaded through one instance is resized by the worker and served by the other, through the S3 store', async () => {
  const call = await apiKey('Images');
  const created = await call(a, 'POST', '/1.1/commerce/products', product('Pictured Mug'));
  assert.equal(created.status, 201, created.body);
  const productId = JSON.parse(created.body).id;
  const jpeg = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#c0392b' } })
    .jpeg()
    .toBuffer();
  const { payload, headers } = multipartFile('file', 'mug.jpg', jpeg);
  const uploaded = await call(a, 'POST', `/1.1/commerce/products/${productId}/images`, payload, headers);
  assert.equal(uploaded.status, 202, uploaded.body);
  const { imageId } = JSON.parse(uploaded.body);

  // Neither instance works images: only the worker can make it READY. At most 80 asks, below the limit.
  const statusUrl = `/1.1/commerce/products/${productId}/images/${imageId}/status`;
  let status = '';
  for (let tries = 0; tries < 80 && status !== 'READY' && status !== 'ERROR'; tries++) {
    if (tries) await new Promise((resolve) => setTimeout(resolve, 250));
    status = JSON.parse((await call(b, 'GET', statusUrl)).body).status;
  }
  assert.equal(status, 'READY', worker.stdout().slice(-2000));
  const file = await request(b.baseUrl, 'GET', `/images/${imageId}?format=300w`, {});
  assert.equal(file.status, 200, file.body);
  assert.equal(file.headers['content-type'], 'image/jpeg');
  const shown = JSON.parse((await call(b, 'GET', `/1.1/commerce/products/${productId}`)).body).products[0];
  assert.equal(shown.images[0].id, imageId);
  assert.ok(shown.images[0].availableFormats.includes('300w'));
});

/** What one write of the load got: an answer, or the error of a connection that had none. */
interface Outcome {
  on: 'a' | 'b';
  afterKill: boolean;
  status: number | null;
  id?: string;
  name: string;
}

test('a SIGKILL of one instance under a load of writes loses no acknowledged write, and the other keeps answering', async () => {
  // Four apps writing side by side, each with a key of its own and 50 writes (below the limit),
  // each app's writes alternating between the instances.
  const lanes = await Promise.all([0, 1, 2, 3].map((n) => apiKey(`Load ${n}`)));
  // Made now: the owner's pages are the first instance's, which the test kills.
  const reader = await apiKey('Reader', ['website.products.read']);
  const perLane = 50;
  const killAt = 100;
  const outcomes: Outcome[] = [];
  let acknowledged = 0;
  let killed = false;
  const aExited = new Promise((resolve) => a.child.once('exit', resolve));

  await Promise.all(
    lanes.map(async (call, lane) => {
      for (let i = 0; i < perLane; i++) {
        const on = (lane + i) % 2 === 0 ? 'a' : 'b';
        const afterKill = killed;
        const name = `Load ${lane}-${i}`;
        const res = await call(on === 'a' ? a : b, 'POST', '/1.1/commerce/products', product(name)).catch(
          () => null,
        );
        const ok = res !== null && res.status >= 200 && res.status < 300;
        outcomes.push({
          on,
          afterKill,
          name,
          status: res?.status ?? null,
          id: ok ? JSON.parse(res.body).id : undefined,
        });
        if (ok) acknowledged++;
        // In the middle of the load, with the other apps' writes in flight.
        if (!killed && acknowledged >= killAt) {
          killed = true;
          a.child.kill('SIGKILL');
        }
      }
    }),
  );
  await aExited;

  const onB = outcomes.filter((o) => o.on === 'b');
  assert.deepEqual(
    onB.filter((o) => o.status !== 201),
    [],
    'every write to the surviving instance succeeded',
  );
  assert.ok(onB.filter((o) => o.afterKill).length >= 40, 'the survivor took writes after the kill');
  assert.ok(
    outcomes.some((o) => o.on === 'a' && o.afterKill && o.status === null),
    'the kill cut the first instance off',
  );

  // Every acknowledged write, on either instance, read back on the survivor by id, 50 at a time.
  const acked = outcomes.filter((o) => o.id);
  assert.ok(acked.length >= killAt && acked.some((o) => o.on === 'a'));
  for (let i = 0; i < acked.length; i += 50) {
    const batch = acked.slice(i, i + 50);
    const res = await reader(b, 'GET', `/1.1/commerce/products/${batch.map((o) => o.id).join(',')}`);
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(
      JSON.parse(res.body).products.map((p: { id: string; name: string }) => [p.id, p.name]),
      batch.map((o) => [o.id, o.name]),
    );
  }
});
