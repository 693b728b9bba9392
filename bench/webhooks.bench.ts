/**
 * Webhook delivery benchmark against the real service (`emporium serve`, embedded PostgreSQL,
 * WEBHOOK_ALLOW_PRIVATE=true) and a receiver in this process on 127.0.0.1 that checks every
 * signature:
 *
 * 1. Delivery rate: a service with no delivery worker; one app holds `--fanout` (10)
 *    subscriptions to product.update, and `--updates` (500) product updates over 10 connections
 *    queue `updates x fanout` notifications. Then one `emporium worker` (`--workers` pollers of
 *    10; 4, the default) delivers the backlog: notifications a second from the first arrival to the last.
 * 2. Latency: a second service delivering in its own process (the default), one subscription;
 *    one update at a time, `--rate` (20) a second for `--duration` (10) seconds, each to another
 *    product; the time from the update's answer (its commit) to the notification's arrival.
 *
 *   npm run bench:webhooks -- --updates 500 --fanout 10 --duration 10
 *
 * Every process started is stopped by its pid and the temporary folder removed.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from '../packages/server/src/oauth/clients.service.ts';
import { issueCode } from '../packages/server/src/oauth/codes.ts';
import { TOKEN_PATH } from '../packages/server/src/oauth/token.routes.ts';
import {
  benchOwner,
  benchSite,
  fmt,
  log,
  percentile,
  send,
  sleep,
  startFreshService,
  startNode,
  stopChild,
  undoOnExit,
} from './harness.ts';

const { values: args } = parseArgs({
  options: {
    updates: { type: 'string', default: '500' },
    fanout: { type: 'string', default: '10' },
    rate: { type: 'string', default: '20' },
    duration: { type: 'string', default: '10' },
    workers: { type: 'string', default: '4' },
  },
});
const updates = Number(args.updates);
const fanout = Number(args.fanout);
const rate = Number(args.rate);
const duration = Number(args.duration);
const workers = args.workers;
const USER_AGENT = 'emporium-bench/1.0';
const REDIRECT_URI = 'https://bench.example.com/callback';

const exit = undoOnExit(15 * 60 * 1000);
const WORKER_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../packages/server/bin/emporium.js',
);

/** The receiver: arrival time by notification, and a signature check of each against its secret. */
function receiver() {
  const secrets = new Map<string, string>();
  const arrivals: { at: number; productId: string; subscriptionId: string }[] = [];
  let badSignatures = 0;
  let waiter: { count: number; resolve: () => void } | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString()) as { subscriptionId: string; data: { productId: string } };
      const secret = secrets.get(body.subscriptionId) ?? '';
      const expected = createHmac('sha256', Buffer.from(secret, 'hex')).update(raw).digest('hex');
      if (req.headers['squarespace-signature'] !== expected) badSignatures++;
      arrivals.push({
        at: performance.now(),
        productId: body.data.productId,
        subscriptionId: body.subscriptionId,
      });
      res.writeHead(204).end();
      if (waiter && arrivals.length >= waiter.count) waiter.resolve();
    });
  });
  return {
    server,
    secrets,
    arrivals,
    badSignatures: () => badSignatures,
    /** Resolves when `count` notifications in all have arrived, or rejects after `ms`. */
    until: (count: number, ms: number) =>
      new Promise<void>((resolve, reject) => {
        if (arrivals.length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`${arrivals.length} of ${count} arrived`)), ms);
        waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      }),
  };
}

/** A fresh service and what the benchmark needs on it: an owner, an app, and stores. */
async function service(
  name: string,
  env: Record<string, string>,
  endpointUrl: string,
  secrets: Map<string, string>,
) {
  const { port, dataDir } = await startFreshService(exit, name, {
    IMAGE_WORKERS: '0',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...env,
  });
  const owner = await benchOwner(exit, dataDir);
  const { deps, databaseUrl, email, ownerId } = owner;
  const client = await createClient(deps, {
    ownerEmail: email,
    name: 'Bench App',
    redirectUris: [REDIRECT_URI],
  });
  const authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;

  /** A website with `count` products, and the app's access token for it. */
  async function store(title: string, count: number) {
    const { websiteId, storePageId, apiKey } = await benchSite(owner, 'website.products', title);
    const code = await issueCode(deps, {
      clientId: client.clientId,
      websiteId,
      ownerId,
      scopes: ['website.products.read'],
      offline: false,
      redirectUri: REDIRECT_URI,
      codeChallenge: null,
    });
    const json = { 'user-agent': USER_AGENT, 'content-type': 'application/json' };
    const token = await send(
      port,
      'POST',
      TOKEN_PATH,
      { ...json, authorization },
      JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }),
    );
    const accessToken = JSON.parse(token.body.toString()).access_token as string;
    const key = { ...json, authorization: `Bearer ${apiKey}` };
    const products: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await send(
        port,
        'POST',
        '/1.1/commerce/products',
        key,
        JSON.stringify({
          type: 'PHYSICAL',
          storePageId,
          name: `Product ${i}`,
          variants: [{ sku: `${title}-${i}`, pricing: { basePrice: { currency: 'USD', value: '9.00' } } }],
        }),
      );
      if (res.status !== 201) throw new Error(`create product: ${res.status} ${res.body.toString()}`);
      products.push(JSON.parse(res.body.toString()).id);
    }
    const subscribe = async () => {
      const res = await send(
        port,
        'POST',
        '/1.0/webhook_subscriptions',
        { ...json, authorization: `Bearer ${accessToken}` },
        JSON.stringify({ endpointUrl, topics: ['product.update'] }),
      );
      if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.body.toString()}`);
      const { id, secret } = JSON.parse(res.body.toString());
      secrets.set(id, secret);
    };
    const update = (productId: string, name: string) =>
      send(port, 'POST', `/1.1/commerce/products/${productId}`, key, JSON.stringify({ name }));
    return { products, subscribe, update };
  }
  return { port, dataDir, databaseUrl, store };
}

try {
  log(`Emporium webhook benchmark: ${os.cpus().length} cores, node ${process.version}`);
  const hooks = receiver();
  hooks.server.listen(0, '127.0.0.1');
  await once(hooks.server, 'listening');
  exit.add(async () => void hooks.server.close());
  const endpointUrl = `http://127.0.0.1:${(hooks.server.address() as AddressInfo).port}/hooks`;

  // (1) Delivery rate: a backlog queued with no worker, then drained by an `emporium worker`.
  const queued = await service('webhooks-drain', { WEBHOOK_WORKERS: '0' }, endpointUrl, hooks.secrets);
  const busy = await queued.store('busy', 50);
  for (let i = 0; i < fanout; i++) await busy.subscribe();
  const expected = updates * fanout;
  const queuing = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      for (let i = next++; i < updates; i = next++) {
        const res = await busy.update(busy.products[i % busy.products.length]!, `Update ${i}`);
        if (res.status !== 200) throw new Error(`update: ${res.status} ${res.body.toString()}`);
      }
    }),
  );
  const queuedIn = (performance.now() - queuing) / 1000;
  const worker = startNode('emporium worker', [WORKER_BIN, 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: queued.databaseUrl,
      DATA_DIR: queued.dataDir,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_WORKERS: workers,
    },
    cwd: path.dirname(WORKER_BIN),
    logFile: path.join(queued.dataDir, '..', 'worker.log'),
  });
  exit.add(async () => void (await stopChild(worker, 30_000)));
  await hooks.until(expected, 300_000);
  const drain = hooks.arrivals.slice(0, expected);
  const drainSeconds = (drain[drain.length - 1]!.at - drain[0]!.at) / 1000;
  const deliveredPerSecond = (expected - 1) / drainSeconds;
  await stopChild(worker, 30_000);
  log(
    `  delivery: ${fmt(updates)} updates x ${fanout} subscriptions queued ${fmt(expected)} notifications in ${fmt(queuedIn, 1)} s; one \`emporium worker\` (${workers} pollers of 10) delivered them in ${fmt(drainSeconds, 1)} s: ${fmt(deliveredPerSecond)} delivered/s`,
  );

  // (2) Latency, on a service delivering in its own process, one subscription.
  const live = await service('webhooks-live', {}, endpointUrl, hooks.secrets);
  const calm = await live.store('calm', rate * duration);
  await calm.subscribe();
  const committed = new Map<string, number>();
  const before = hooks.arrivals.length;
  for (const productId of calm.products) {
    const due = performance.now() + 1000 / rate;
    const res = await calm.update(productId, 'Renamed');
    if (res.status !== 200) throw new Error(`update: ${res.status}`);
    committed.set(productId, performance.now());
    await sleep(Math.max(0, due - performance.now()));
  }
  await hooks.until(before + calm.products.length, 60_000);
  const latencies = hooks.arrivals
    .slice(before)
    .map((a) => a.at - committed.get(a.productId)!)
    .sort((a, b) => a - b);
  log(
    `  latency at ${rate} updates/s: p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms over ${latencies.length} notifications`,
  );
  log(`  signatures that did not verify: ${hooks.badSignatures()}`);
  log('\n| notifications | delivered/s | update to notification p50 ms | p99 ms | bad signatures |');
  log('|---:|---:|---:|---:|---:|');
  log(
    `| ${fmt(expected)} | ${fmt(deliveredPerSecond)} | ${fmt(percentile(latencies, 50), 1)} | ${fmt(percentile(latencies, 99), 1)} | ${hooks.badSignatures()} |`,
  );
  process.exitCode = hooks.badSignatures() === 0 ? 0 : 1;
} finally {
  await exit.finish();
}
