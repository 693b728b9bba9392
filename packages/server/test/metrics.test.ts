import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ConfigError, loadConfig } from '../src/config.ts';
import { Metrics } from '../src/metrics/metrics.ts';
import { listenForMetrics } from '../src/metrics/metrics-server.ts';
import { createProduct, multipartFile, physical } from './helpers/factories.ts';
import { assertError } from './helpers/shape.ts';
import { testApp, type Site, type TestContext } from './helpers/test-app.ts';
import { connectApp, Receiver, until } from './helpers/webhooks.ts';

const PRODUCTS = '/1.1/commerce/products';
const TOKEN = 'metrics-token-0123456789abcdef';

let ctx: TestContext;
let site: Site;
let receiver: Receiver;
before(async () => {
  // Webhook pollers (which start the job queue) but no image worker, so an uploaded image waits.
  ctx = await testApp({
    logLevel: 'silent',
    webhookWorkers: 1,
    webhooks: { retryDelayMs: () => 0, timeoutMs: 300 },
    processMetrics: true,
  });
  site = await ctx.site();
  receiver = await new Receiver().start();
});
after(async () => {
  await receiver.stop();
  await ctx.close();
});

/** The samples of a scrape by series (`name{labels}`), and the text itself. */
async function scrape(app = ctx.app, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { samples, text: res.body };
}

const picture = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .jpeg()
    .toBuffer();

describe('/metrics', () => {
  test('requests are counted and timed by method, route pattern and status, never by URL or id', async () => {
    const product = await createProduct(site, physical(site));
    for (let i = 0; i < 2; i++) {
      assert.equal((await site.call({ method: 'GET', url: `${PRODUCTS}/${product.id}` })).statusCode, 200);
    }
    const missing = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    assert.equal((await site.call({ method: 'GET', url: `${PRODUCTS}/${missing}` })).statusCode, 404);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/no/such/path/x1y2z3' })).statusCode, 404);

    const { samples, text } = await scrape();
    const series = (status: number) =>
      `emporium_http_request_duration_seconds_count{method="GET",route="${PRODUCTS}/:productIdCsvs",status="${status}"}`;
    assert.equal(samples.get(series(200)), 2);
    assert.equal(samples.get(series(404)), 1);
    assert.equal(
      samples.get(
        `emporium_http_request_duration_seconds_count{method="POST",route="${PRODUCTS}",status="201"}`,
      ),
      1,
    );
    assert.equal(
      samples.get(
        'emporium_http_request_duration_seconds_count{method="GET",route="(unmatched)",status="404"}',
      ),
      1,
    );
    const bucket = (le: string) =>
      samples.get(
        `emporium_http_request_duration_seconds_bucket{method="GET",route="${PRODUCTS}/:productIdCsvs",status="200",le="${le}"}`,
      );
    assert.equal(bucket('+Inf'), 2, 'every request falls in the last bucket');
    for (const secret of [product.id, missing, 'x1y2z3', site.websiteId, site.apiKey]) {
      assert.equal(text.includes(secret), false, `${secret} is not on the page`);
    }
  });

  test('webhooks: each attempt by outcome, each delivery by status, and the time from queued to delivered', async () => {
    const connected = await connectApp(ctx, ['website.products']);
    const sub = await connected.call('POST', '/1.0/webhook_subscriptions', {
      endpointUrl: receiver.url,
      topics: ['product.create'],
    });
    assert.equal(sub.statusCode, 201, sub.body);
    receiver.answer(500); // the first post fails, the retry succeeds
    const before = receiver.received.length;
    await createProduct(connected.site, physical(connected.site));
    await receiver.got(before + 2);
    const metric = (name: string) => async () => (await scrape()).samples.get(name) ?? 0;
    await until(
      metric('emporium_webhook_deliveries_ended_total{status="DELIVERED"}'),
      (n) => n === 1,
      'delivered',
    );
    const { samples } = await scrape();
    assert.equal(samples.get('emporium_webhook_attempts_total{outcome="failed"}'), 1);
    assert.equal(samples.get('emporium_webhook_attempts_total{outcome="delivered"}'), 1);
    assert.equal(samples.get('emporium_webhook_delivery_lag_seconds_count'), 1);
    assert.ok((samples.get('emporium_webhook_delivery_lag_seconds_sum') ?? -1) >= 0);
  });

  test('job queues: a job no worker has taken is due, with the time it has waited', async () => {
    const product = await createProduct(site, physical(site));
    const res = await site.call({
      method: 'POST',
      url: `${PRODUCTS}/${product.id}/images`,
      ...multipartFile('file', 'mug.jpg', await picture()),
    });
    assert.equal(res.statusCode, 202, res.body);
    ctx.clock.advance(10_000); // past the few seconds the queue counts are kept
    const { samples } = await scrape();
    assert.equal(samples.get('emporium_job_queue_due{queue="image.process"}'), 1);
    assert.equal(samples.get('emporium_job_queue_due{queue="webhook.deliver"}'), 0);
    assert.equal(samples.get('emporium_job_queue_delayed{queue="image.process"}'), 0);
    assert.ok((samples.get('emporium_job_queue_oldest_due_seconds{queue="image.process"}') ?? -1) >= 0);
  });

  test('the database pool and the process: connections by state, waiting queries, Node metrics', async () => {
    const { samples } = await scrape();
    assert.ok(
      (samples.get('emporium_db_pool_connections{state="idle"}') ?? 0) >= 1,
      'the pool has connected',
    );
    assert.ok(samples.has('emporium_db_pool_connections{state="busy"}'));
    assert.equal(samples.get('emporium_db_pool_waiting'), 0);
    assert.ok(samples.has('process_cpu_user_seconds_total'));
    assert.ok(samples.has('nodejs_eventloop_lag_seconds'));
  });

  test('image processing is timed by outcome', async () => {
    const images = await testApp({ logLevel: 'silent', imageWorkers: 1 });
    try {
      const owner = await images.site();
      const product = await createProduct(owner, physical(owner));
      const upload = (bytes: Buffer) =>
        owner.call({
          method: 'POST',
          url: `${PRODUCTS}/${product.id}/images`,
          ...multipartFile('file', 'mug.jpg', bytes),
        });
      const good = await upload(await picture());
      assert.equal(good.statusCode, 202, good.body);
      await images.imageProcessed(good.json().imageId);
      // A JPEG whose data is cut short: its header passes the upload checks, decoding fails.
      const whole = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#888' } })
        .jpeg()
        .toBuffer();
      const broken = await upload(whole.subarray(0, 400));
      assert.equal(broken.statusCode, 202, broken.body);
      await images.imageProcessed(broken.json().imageId);
      const { samples } = await scrape(images.app);
      assert.equal(samples.get('emporium_image_processing_seconds_count{outcome="ready"}'), 1);
      assert.equal(samples.get('emporium_image_processing_seconds_count{outcome="error"}'), 1);
    } finally {
      await images.close();
    }
  });
});

describe('access to /metrics', () => {
  test('with METRICS_TOKEN it takes that bearer token only, in the documented error body otherwise', async () => {
    const guarded = await testApp({ logLevel: 'silent', metricsToken: TOKEN });
    try {
      const refused = [
        {},
        { authorization: 'Bearer wrong-token-0123456789abcdef' },
        { authorization: TOKEN },
      ];
      for (const headers of refused) {
        const res = await guarded.app.inject({ method: 'GET', url: '/metrics', headers });
        assertError(res, 401, 'AUTHORIZATION_ERROR', null, /metrics token/);
        assert.equal(res.headers['www-authenticate'], 'Bearer realm="emporium metrics"');
      }
      await scrape(guarded.app, { authorization: `Bearer ${TOKEN}` });
    } finally {
      await guarded.close();
    }
  });

  test('a guessable METRICS_TOKEN or a bad METRICS_PORT stops start-up with a clear message', () => {
    const refused = (message: RegExp) => (error: unknown) =>
      error instanceof ConfigError && message.test(error.message);
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: 'short' }),
      refused(/^METRICS_TOKEN must be at least 16 printable characters without spaces$/),
    );
    assert.throws(
      () => loadConfig({ METRICS_PORT: '70000' }),
      refused(/^METRICS_PORT must be a whole number/),
    );
    assert.equal(loadConfig({ METRICS_TOKEN: TOKEN, METRICS_PORT: '9464' }).metricsPort, 9464);
  });

  test('without METRICS_TOKEN it is open, for a private network', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
  });

  test("the worker's listener (METRICS_PORT) serves /metrics under the same rule, and nothing else", async () => {
    const metrics = new Metrics();
    metrics.webhookAttempted(true);
    const listener = await listenForMetrics(metrics, { host: '127.0.0.1', port: 0, token: TOKEN });
    try {
      const address = listener.server.address();
      assert.ok(address && typeof address === 'object');
      const base = `http://127.0.0.1:${address.port}`;
      const refused = await fetch(`${base}/metrics`);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).type, 'AUTHORIZATION_ERROR');
      const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /^emporium_webhook_attempts_total\{outcome="delivered"\} 1$/m);
      const other = await fetch(`${base}/1.1/commerce/products`);
      assert.equal(other.status, 404);
      assert.equal((await other.json()).type, 'INVALID_REQUEST_ERROR');
    } finally {
      await listener.close();
    }
  });
});
