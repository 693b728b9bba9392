/**
 * Inventory adjustments benchmark against the real service (`emporium serve`, embedded
 * PostgreSQL): `--connections` (20) clients at once, each sending adjustments one after the
 * other for 3 s of warm-up and then `--duration` (10) seconds. Each adjustment is +1 or -1 on 1
 * to 4 random variants of `--variants` (200), spread over products of `--per-product` (5)
 * variants so that requests meet on product locks, with a fresh Idempotency-Key; a share
 * (`--replays`, 0.1) instead resends an adjustment applied earlier, with its key. Then it checks,
 * variant by variant, that the final stock is the initial one plus the applied increments minus
 * the applied decrements: nothing lost, nothing doubled, no replay applied.
 *
 *   npm run bench:inventory -- --duration 10 --connections 20
 *
 * With `--sync`, three sync clients (sync-readers.ts) read the products list meanwhile, one of
 * each kind of resumption, and must end having seen every product's final state.
 *
 * Every process started is stopped by its pid and the temporary folder removed, on failure and
 * on Ctrl-C too.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  benchOwner,
  benchSite,
  fmt,
  log,
  percentile,
  send,
  startFreshService,
  undoOnExit,
} from './harness.ts';
import { missedFinalStates, syncReaders, type SyncReader } from './sync-readers.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    variants: { type: 'string', default: '200' },
    replays: { type: 'string', default: '0.1' },
    'per-product': { type: 'string', default: '5' },
    sync: { type: 'boolean', default: false },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const variantCount = Number(args.variants);
const replayShare = Number(args.replays);
const VARIANTS_A_PRODUCT = Number(args['per-product']);
/** Low enough that some decrements meet an empty stock and are refused (409 INSUFFICIENT_STOCK). */
const INITIAL_STOCK = 5;
const USER_AGENT = 'emporium-bench/1.0';
const ADJUSTMENTS = '/1.0/commerce/inventory/adjustments';
const WARMUP_MS = 3_000;

const exit = undoOnExit((300 + 3 * duration) * 1000);

interface Adjustment {
  key: string;
  body: string;
  /** +1 or -1 by variant id. */
  deltas: Map<string, number>;
}

const outcomes = { applied: 0, insufficient: 0, running: 0, replayed: 0, failed: [] as string[] };
const applied: Adjustment[] = [];

function randomAdjustment(variantIds: string[]): Adjustment {
  const deltas = new Map<string, number>();
  const size = 1 + Math.floor(Math.random() * 4);
  while (deltas.size < size) {
    deltas.set(variantIds[Math.floor(Math.random() * variantIds.length)]!, Math.random() < 0.5 ? 1 : -1);
  }
  const ops = (sign: number) =>
    [...deltas].filter(([, d]) => d === sign).map(([variantId]) => ({ variantId, quantity: 1 }));
  return {
    key: randomBytes(12).toString('base64url'),
    body: JSON.stringify({ incrementOperations: ops(1), decrementOperations: ops(-1) }),
    deltas,
  };
}

/** One client: an adjustment after the other until `until`; latencies in ms. */
async function client(
  port: number,
  headers: Record<string, string>,
  variantIds: string[],
  until: number,
  agent: http.Agent,
) {
  const latencies: number[] = [];
  while (performance.now() < until) {
    const replay = applied.length > 0 && Math.random() < replayShare;
    const adjustment = replay
      ? applied[Math.floor(Math.random() * applied.length)]!
      : randomAdjustment(variantIds);
    const res = await send(
      port,
      'POST',
      ADJUSTMENTS,
      { ...headers, 'content-type': 'application/json', 'idempotency-key': adjustment.key },
      adjustment.body,
      10_000,
      agent,
    );
    latencies.push(res.ms);
    const subtype =
      res.status === 409 ? (JSON.parse(res.body.toString()) as { subtype: string }).subtype : '';
    if (res.status === 204 && replay) outcomes.replayed++;
    else if (res.status === 204) {
      outcomes.applied++;
      applied.push(adjustment);
    } else if (subtype === 'INSUFFICIENT_STOCK' && !replay) outcomes.insufficient++;
    else if (subtype === 'CONCURRENT_MODIFICATION' && replay) outcomes.running++;
    else
      outcomes.failed.push(
        `${replay ? 'replay' : 'new'}: ${res.status} ${res.body.toString().slice(0, 200)}`,
      );
  }
  return latencies;
}

/** One more read by each sync reader, then each must hold every product's final state. */
async function checkReaders(
  readers: SyncReader[],
  port: number,
  headers: Record<string, string>,
  productIds: string[],
): Promise<boolean> {
  for (const reader of readers) await reader.catchUp();
  const current = new Map<string, string>();
  for (let i = 0; i < productIds.length; i += 50) {
    const res = await send(
      port,
      'GET',
      `/1.1/commerce/products/${productIds.slice(i, i + 50).join(',')}`,
      headers,
    );
    if (res.status !== 200) throw new Error(`products: ${res.status} ${res.body.toString()}`);
    for (const p of JSON.parse(res.body.toString()).products as { id: string }[])
      current.set(p.id, JSON.stringify(p));
  }
  log('\n| sync reader | page reads | p50 ms | p99 ms | final state of every product |');
  log('|---|---:|---:|---:|---|');
  let ok = true;
  for (const reader of readers) {
    const missed = missedFinalStates(reader, current);
    const latencies = [...reader.latencies].sort((a, b) => a - b);
    log(
      `| ${reader.kind} | ${latencies.length} | ${fmt(percentile(latencies, 50), 1)} | ${fmt(percentile(latencies, 99), 1)} | ` +
        `${missed.length ? `${missed.length} missed` : `all ${current.size} seen`} |`,
    );
    ok &&= missed.length === 0;
  }
  log(`${ok ? 'PASS' : 'FAIL'}  every sync reader ends having seen every product's final state`);
  return ok;
}

try {
  log(`Emporium inventory benchmark: ${os.cpus().length} cores, node ${process.version}`);
  const { port, dataDir } = await startFreshService(exit, 'inventory', { IMAGE_WORKERS: '0' });

  const { storePageId, apiKey } = await benchSite(
    await benchOwner(exit, dataDir),
    'website.products,website.inventory',
  );
  const headers = { authorization: `Bearer ${apiKey}`, 'user-agent': USER_AGENT };

  const variantIds: string[] = [];
  const productIds: string[] = [];
  for (let p = 0; variantIds.length < variantCount; p++) {
    const n = Math.min(VARIANTS_A_PRODUCT, variantCount - variantIds.length);
    const body = JSON.stringify({
      type: 'PHYSICAL',
      storePageId,
      name: `Product ${p}`,
      variantAttributes: ['Size'],
      variants: Array.from({ length: n }, (_, i) => ({
        sku: `SKU-${p}-${i}`,
        attributes: { Size: `S${i}` },
        pricing: { basePrice: { currency: 'USD', value: '9.00' } },
        stock: { quantity: INITIAL_STOCK, unlimited: false },
      })),
    });
    const res = await send(
      port,
      'POST',
      '/1.1/commerce/products',
      { ...headers, 'content-type': 'application/json' },
      body,
    );
    if (res.status !== 201) throw new Error(`create product: ${res.status} ${res.body.toString()}`);
    const product = JSON.parse(res.body.toString()) as { id: string; variants: { id: string }[] };
    productIds.push(product.id);
    variantIds.push(...product.variants.map((v) => v.id));
  }
  log(`  ${variantIds.length} variants of ${INITIAL_STOCK} in stock, ${VARIANTS_A_PRODUCT} a product`);

  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const run = (until: number) =>
    Promise.all(Array.from({ length: connections }, () => client(port, headers, variantIds, until, agent)));
  // A warm-up, so that the figures are the compiled code's; what it applied counts in the check.
  await run(performance.now() + WARMUP_MS);
  const warmup = { applied: outcomes.applied, replayed: outcomes.replayed };
  Object.assign(outcomes, { applied: 0, insufficient: 0, running: 0, replayed: 0 });
  const readers = args.sync ? syncReaders(port, headers) : [];
  let writing = true;
  const reading = readers.map(async (reader) => {
    while (writing) await reader.catchUp();
  });
  const started = performance.now();
  const runs = await run(started + duration * 1000);
  const seconds = (performance.now() - started) / 1000;
  writing = false;
  await Promise.all(reading);
  agent.destroy();
  const latencies = runs.flat().sort((a, b) => a - b);

  // The check: every variant's stock is its initial stock plus what the applied adjustments did.
  const expected = new Map(variantIds.map((id) => [id, INITIAL_STOCK]));
  for (const a of applied) for (const [id, d] of a.deltas) expected.set(id, expected.get(id)! + d);
  const actual = new Map<string, number>();
  for (let path = '/1.0/commerce/inventory'; ;) {
    const res = await send(port, 'GET', path, headers);
    if (res.status !== 200) throw new Error(`inventory: ${res.status} ${res.body.toString()}`);
    const page = JSON.parse(res.body.toString()) as {
      inventory: { variantId: string; quantity: number }[];
      pagination: { nextPageCursor: string | null };
    };
    for (const item of page.inventory) actual.set(item.variantId, item.quantity);
    if (!page.pagination.nextPageCursor) break;
    path = `/1.0/commerce/inventory?cursor=${encodeURIComponent(page.pagination.nextPageCursor)}`;
  }
  const wrong = variantIds.filter((id) => actual.get(id) !== expected.get(id));

  log(`  warm-up, ${WARMUP_MS / 1000} s: ${warmup.applied} applied, ${warmup.replayed} replays`);
  log(
    `  ${connections} clients, ${fmt(seconds, 1)} s: ${latencies.length} requests, ${outcomes.applied} applied (204), ` +
      `${outcomes.replayed} replays (204), ${outcomes.insufficient} refused 409 INSUFFICIENT_STOCK, ` +
      `${outcomes.running} replays 409 CONCURRENT_MODIFICATION, ${outcomes.failed.length} other`,
  );
  for (const failure of outcomes.failed.slice(0, 5)) log(`    ${failure}`);
  log(
    '\n| adjustments/s | requests/s | p50 ms | p99 ms | applied | replays | 409 stock | 409 running | stock check |',
  );
  log('|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  log(
    `| ${fmt(outcomes.applied / seconds)} | ${fmt(latencies.length / seconds)} | ${fmt(percentile(latencies, 50), 1)} | ${fmt(percentile(latencies, 99), 1)} | ` +
      `${outcomes.applied} | ${outcomes.replayed} | ${outcomes.insufficient} | ${outcomes.running} | ${wrong.length ? `${wrong.length} wrong` : `all ${variantIds.length} right`} |`,
  );
  const ok = wrong.length === 0 && outcomes.failed.length === 0 && actual.size === variantIds.length;
  log(
    `${ok ? 'PASS' : 'FAIL'}  final stock == initial + applied increments - applied decrements for every variant; no unexpected answer`,
  );
  const synced = readers.length === 0 || (await checkReaders(readers, port, headers, productIds));
  process.exitCode = ok && synced ? 0 : 1;
} finally {
  await exit.finish();
}
