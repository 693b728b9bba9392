/**
 * Orders API benchmark: the real service process on 100k and 1M orders. See bench/README.md.
 *
 *   npm run bench:orders -- --sizes 100000,1000000 --duration 15
 *
 * For each size: a new database, the service started as `emporium serve`, products with stock
 * made over HTTP, the orders bulk-loaded (load-orders.ts), then
 *
 * 1. the first list page (50 orders) under autocannon, against a baseline that sends the same
 *    bytes from memory, as the products benchmark does;
 * 2. order imports with three PHYSICAL_PRODUCT lines and `inventoryBehavior: DEDUCT` from
 *    `--create-connections` clients at once, a bounded count, each with its own Idempotency-Key,
 *    a few variants short of stock so that some orders are refused; then checked to the unit
 *    against the database: one order for every 201, the stock of every variant down by exactly
 *    what the accepted orders took, none below zero, every refusal for a variant short of stock.
 *
 * Every process started here is stopped by its pid; temporary folders and databases are removed.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fromMinorUnits } from '../packages/server/src/shared/money.ts';
import {
  cpuMeter,
  fmt,
  get,
  log,
  loadAverage,
  percentile,
  send,
  stopChild,
  type CpuShare,
} from './harness.ts';
import {
  cpuLine,
  measure,
  parseSizes,
  positive,
  revision,
  sizedRun,
  sizeLabel,
  startBaseline,
  startSizeService,
  verdicts,
  waitQuiet,
  type Run,
} from './list-runs.ts';
import {
  createOrdersSite,
  createStockedProducts,
  loadOrders,
  templateOrder,
  type OrdersLoadReport,
  type OrdersSite,
  type StockedVariant,
} from './load-orders.ts';

const LIST = '/1.0/commerce/orders';
const USER_AGENT = 'emporium-bench/1.0';
/** What the list shows when no paymentStates are given (platform-surface 2.1.1). */
const DEFAULT_PAYMENT_STATES = ['NOT_CHARGED', 'AUTHORIZED', 'PAID', 'REFUNDED'];
/** Stock of the variants the orders sell: more than any run takes, except the scarce ones. */
const STOCK = 100_000;
/** Variants (positions among all) with scarceStock: they sell out early in a run. */
const SCARCE = new Set([1, 22, 43]);
/** Accepted orders resent with their key and body after the run: each must answer the same order. */
const REPLAYS = 20;

const TARGETS = { listShare: 0.4, listDrift: 0.2 };

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    duration: { type: 'string', default: '15' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    orders: { type: 'string', default: '2000' },
    'create-warmup': { type: 'string', default: '200' },
    'create-connections': { type: 'string', default: '20' },
    products: { type: 'string', default: '20' },
    'log-level': { type: 'string', default: 'info' },
    'cpu-prof': { type: 'string' },
    'request-timeout': { type: 'string', default: '10' },
    'no-quiet-wait': { type: 'boolean', default: false },
  },
  strict: true,
});

const sizes = parseSizes(args.sizes);
const duration = positive('duration', args.duration);
const connections = positive('connections', args.connections);
const warmup = positive('warmup', args.warmup);
const orderCount = positive('orders', args.orders);
const createWarmup = positive('create-warmup', args['create-warmup']);
const createConnections = positive('create-connections', args['create-connections']);
const productCount = positive('products', args.products);
const logLevel = args['log-level'] ?? 'info';
const cpuProfDir = args['cpu-prof'];
/** Seconds an import may take before the run fails: more on a machine shared with other work. */
const requestTimeoutMs = positive('request-timeout', args['request-timeout']) * 1000;
/**
 * Each step waits up to 90 s for the machine to quiet down; on a machine busy with other work
 * that never comes, and runs measured before and after a change in turn are compared instead.
 */
const quiet = (what: string, named: Record<string, number>) =>
  args['no-quiet-wait'] ? log(`  not waiting for a quiet machine before ${what}`) : waitQuiet(what, named);
const externalDb = process.env.DATABASE_URL || undefined;
/**
 * A tenth of what the imports take of a variant on average (three lines of 2 on average over all
 * variants), so that the scarce variants sell out early whatever the number of imports.
 */
const scarceStock = Math.max(2, Math.round(((createWarmup + orderCount) * 3 * 2) / (productCount * 3) / 10));
if (productCount * 3 <= Math.max(...SCARCE))
  throw new Error(`--products: at least ${Math.floor(Math.max(...SCARCE) / 3) + 1}`);

// The whole run is bounded: loads, runs and order imports, with room to spare.
const run = sizedRun(
  sizes.reduce(
    (sum, size) =>
      sum + 240_000 + size * 0.3 + 2 * (warmup + duration) * 1000 + (orderCount + createWarmup) * 100,
    60_000,
  ),
);
const settings = { connections, warmup, duration };

/* ---------- order imports ---------- */

interface Line {
  variantId: string;
  quantity: number;
}

interface Sent {
  key: string;
  body: string;
  lines: Line[];
}

interface Creation {
  seconds: number;
  /** Milliseconds of every request of the timed part. */
  latencies: number[];
  /** 201s of the timed part. */
  created: number;
  accepted: (Sent & { orderId: string })[];
  refused: (Sent & { message: string })[];
  /** Any other answer, or a 201 that is not the order sent. */
  failures: string[];
  replays: { sent: number; same: number };
  /** CPU use during the timed part: the clients are the bench process. */
  cpu?: CpuShare;
}

const ADDRESS = {
  firstName: 'Grace',
  lastName: 'Hopper',
  address1: '1 Navy Yard Road',
  city: 'Arlington',
  state: 'VA',
  countryCode: 'US',
  postalCode: '22202',
  phone: '+1 703 555 0100',
};

/** An import of three different variants, 1 to 3 of each, with shipping and tax, its totals right. */
function orderRequest(variants: StockedVariant[], currency: string, n: number): Sent {
  const picked = new Set<number>();
  while (picked.size < 3) picked.add(Math.floor(Math.random() * variants.length));
  const lines = [...picked].map((i) => ({
    variant: variants[i]!,
    quantity: 1 + Math.floor(Math.random() * 3),
  }));
  const money = (minor: number) => fromMinorUnits(minor, currency);
  const subtotal = lines.reduce((sum, l) => sum + l.variant.priceMinor * l.quantity, 0);
  const shipping = 595;
  const tax = Math.round(subtotal * 0.08);
  const body = {
    channelName: 'Bench Marketplace',
    externalOrderReference: `BENCH-${n}-${randomBytes(3).toString('hex')}`,
    createdOn: new Date().toISOString(),
    priceTaxInterpretation: 'EXCLUSIVE',
    customerEmail: `shopper-${Math.floor(Math.random() * 500)}@example.com`,
    billingAddress: ADDRESS,
    shippingAddress: ADDRESS,
    lineItems: lines.map((l) => ({
      lineItemType: 'PHYSICAL_PRODUCT',
      variantId: l.variant.id,
      quantity: l.quantity,
      unitPricePaid: money(l.variant.priceMinor),
    })),
    shippingLines: [{ method: 'Standard shipping', amount: money(shipping) }],
    subtotal: money(subtotal),
    shippingTotal: money(shipping),
    taxTotal: money(tax),
    grandTotal: money(subtotal + shipping + tax),
    fulfillments: [],
    fulfillmentStatus: 'PENDING',
    inventoryBehavior: 'DEDUCT',
  };
  return {
    key: randomBytes(16).toString('hex'),
    body: JSON.stringify(body),
    lines: lines.map((l) => ({ variantId: l.variant.id, quantity: l.quantity })),
  };
}

/** `count` imports from `createConnections` clients at once, each taking the next until none is left. */
async function createOrders(
  port: number,
  site: OrdersSite,
  variants: StockedVariant[],
  count: number,
  into: Creation,
  timed: boolean,
): Promise<void> {
  const headers = {
    authorization: `Bearer ${site.ordersKey}`,
    'user-agent': USER_AGENT,
    'content-type': 'application/json',
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: createConnections });
  let next = 0;
  const client = async () => {
    for (let n = next++; n < count; n = next++) {
      const sent = orderRequest(variants, site.currency, n);
      const res = await send(
        port,
        'POST',
        LIST,
        { ...headers, 'idempotency-key': sent.key },
        sent.body,
        requestTimeoutMs,
        agent,
      );
      if (timed) into.latencies.push(res.ms);
      const text = res.body.toString();
      if (res.status === 201) {
        const order = JSON.parse(text) as { id?: string; channel?: string; lineItems?: unknown[] };
        if (typeof order.id !== 'string' || order.channel !== 'external' || order.lineItems?.length !== 3) {
          into.failures.push(`201 with another order than sent: ${text.slice(0, 200)}`);
          continue;
        }
        into.accepted.push({ ...sent, orderId: order.id });
        if (timed) into.created++;
        continue;
      }
      const error = res.status === 409 ? (JSON.parse(text) as { subtype?: string; message?: string }) : {};
      if (error.subtype === 'INSUFFICIENT_STOCK')
        into.refused.push({ ...sent, message: error.message ?? '' });
      else into.failures.push(`${res.status} ${text.slice(0, 200)}`);
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: createConnections }, client));
  } finally {
    agent.destroy();
  }
  if (timed) into.seconds = (performance.now() - started) / 1000;
}

/** Accepted orders sent again with their key and body: the same order must come back, none made. */
async function replay(port: number, site: OrdersSite, into: Creation): Promise<void> {
  const headers = {
    authorization: `Bearer ${site.ordersKey}`,
    'user-agent': USER_AGENT,
    'content-type': 'application/json',
  };
  for (const sent of into.accepted.slice(0, REPLAYS)) {
    const res = await send(port, 'POST', LIST, { ...headers, 'idempotency-key': sent.key }, sent.body);
    into.replays.sent++;
    const id = res.status === 201 ? (JSON.parse(res.body.toString()) as { id?: string }).id : undefined;
    if (id === sent.orderId) into.replays.same++;
    else into.failures.push(`replay of ${sent.orderId}: ${res.status} ${res.body.toString().slice(0, 200)}`);
  }
}

interface Check {
  /** Orders the run made, as the database has them, and the order numbers they got. */
  stored: number;
  missing: number;
  numbersInSequence: boolean;
  variantsUsed: number;
  /** Variants whose stock did not go down by exactly what the accepted orders took. */
  stockWrong: string[];
  belowZero: number;
  /** Refusals that named no variant of the order short of stock at the end. */
  refusalsWrong: string[];
}

/** The database against the answers: orders, order numbers, and stock to the unit. */
async function checkCreation(
  dbUrl: string,
  site: OrdersSite,
  size: number,
  variants: StockedVariant[],
  creation: Creation,
): Promise<Check> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows: orders } = await client.query<{ id: string; order_number: number }>(
      'SELECT id, order_number FROM orders WHERE website_id = $1 AND order_number > $2 ORDER BY order_number',
      [site.websiteId, size],
    );
    const answered = new Set(creation.accepted.map((a) => a.orderId));
    const storedIds = new Set(orders.map((o) => o.id));
    const { rows: stock } = await client.query<{ id: string; stock_quantity: number }>(
      'SELECT id, stock_quantity FROM variants WHERE website_id = $1',
      [site.websiteId],
    );
    const remaining = new Map(stock.map((row) => [row.id, row.stock_quantity]));
    const taken = new Map<string, number>();
    for (const order of creation.accepted)
      for (const line of order.lines)
        taken.set(line.variantId, (taken.get(line.variantId) ?? 0) + line.quantity);
    const stockWrong: string[] = [];
    for (const v of variants) {
      const left = remaining.get(v.id);
      if (left === undefined || v.stock - left !== (taken.get(v.id) ?? 0))
        stockWrong.push(`${v.sku}: ${v.stock} - ${left} != ${taken.get(v.id) ?? 0} taken`);
    }
    const refusalsWrong: string[] = [];
    for (const order of creation.refused) {
      const short = order.lines.some(
        (line) =>
          order.message.includes(line.variantId) && (remaining.get(line.variantId) ?? 0) < line.quantity,
      );
      if (!short) refusalsWrong.push(order.message.slice(0, 200));
    }
    return {
      stored: orders.length,
      missing: [...answered].filter((id) => !storedIds.has(id)).length,
      numbersInSequence: orders.every((o, i) => o.order_number === size + 1 + i),
      variantsUsed: taken.size,
      stockWrong,
      belowZero: stock.filter((row) => row.stock_quantity < 0).length,
      refusalsWrong,
    };
  } finally {
    await client.end();
  }
}

/* ---------- one size ---------- */

interface SizeResult {
  size: number;
  load: OrdersLoadReport;
  listBytes: number;
  list: { emporium: Run; baseline: Run };
  creation: Creation;
  check: Check;
  rssMb: number;
}

async function runSize(size: number): Promise<SizeResult> {
  log(`\n== ${fmt(size)} orders ==`);
  const { tmp, port, server, dbUrl, rss } = await startSizeService(run, {
    externalDb,
    logLevel,
    cpuProfDir,
    // The platform's 100 imports an hour with an API key would stop the run at once.
    env: { ORDER_IMPORTS_PER_HOUR: '1000000' },
    logs: (files) => (run.logs = files),
  });
  const site = await createOrdersSite(dbUrl);
  const variants = await createStockedProducts(port, site, productCount, STOCK, SCARCE, scarceStock);
  log(
    `  ${variants.length} variants of ${productCount} products, ${fmt(STOCK)} in stock each but ` +
      `${SCARCE.size} with ${scarceStock}`,
  );
  await quiet('the load', { emporium: server.pid });
  const load = await loadOrders(dbUrl, site, templateOrder(site, variants), size, log);
  log(
    `  loaded ${fmt(load.orders)} orders (${fmt(load.listed)} listed by default, ${fmt(load.profiles)} buyers ` +
      `with a profile, documents of ${fmt(load.documentBytes)} bytes) in ${fmt(load.totalMs / 1000, 1)} s`,
  );

  const headers = { authorization: `Bearer ${site.ordersKey}`, 'user-agent': USER_AGENT };
  const listResponse = await get(port, LIST, headers);
  if (listResponse.status !== 200)
    throw new Error(`list: status ${listResponse.status}: ${listResponse.body}`);
  const page = JSON.parse(listResponse.body.toString()) as {
    result: { id: string; lineItems: unknown[] }[];
    pagination: { hasNextPage: boolean };
  };
  if (page.result.length !== 50 || !page.pagination.hasNextPage)
    throw new Error('list: not a full page of 50');
  if (page.result.some((order) => order.lineItems.length !== 3))
    throw new Error('list: an order without its 3 lines');
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const { rows: newest } = await client.query<{ id: string }>(
    `SELECT id FROM orders WHERE website_id = $1 AND payment_state = ANY($2)
     ORDER BY modified_on DESC, id DESC LIMIT 50`,
    [site.websiteId, DEFAULT_PAYMENT_STATES],
  );
  await client.end();
  if (newest.map((r) => r.id).join() !== page.result.map((o) => o.id).join())
    throw new Error('list: the first page is not the 50 newest changes of the listed payment states');
  log(
    `  captured the list page (${fmt(listResponse.body.length)} bytes): the 50 newest changes, as in the database`,
  );

  const { port: baselinePort, child: baseline } = await startBaseline(run, tmp, LIST, {
    list: listResponse.body,
  });
  await quiet('the runs', { emporium: server.pid, baseline: baseline.pid });
  const named = { emporium: server.pid, baseline: baseline.pid };
  const list = {
    emporium: await measure(settings, 'list  emporium', port, [LIST], headers, named),
    baseline: await measure(settings, 'list  baseline', baselinePort, [LIST], headers, named),
  };
  await stopChild(baseline, 10_000);

  const creation: Creation = {
    seconds: 0,
    latencies: [],
    created: 0,
    accepted: [],
    refused: [],
    failures: [],
    replays: { sent: 0, same: 0 },
  };
  await quiet('the imports', { emporium: server.pid });
  await createOrders(port, site, variants, createWarmup, creation, false);
  const meter = cpuMeter({ emporium: server.pid });
  await createOrders(port, site, variants, orderCount, creation, true);
  creation.cpu = meter();
  await replay(port, site, creation);
  creation.latencies.sort((a, b) => a - b);
  log(
    `  imports: ${createWarmup} to warm up, then ${orderCount} from ${createConnections} clients in ` +
      `${fmt(creation.seconds, 1)} s: ${fmt(creation.created / creation.seconds)} orders/s, ` +
      `${fmt(creation.latencies.length / creation.seconds)} requests/s, p50 ${fmt(percentile(creation.latencies, 50), 1)} ms, ` +
      `p99 ${fmt(percentile(creation.latencies, 99), 1)} ms; in all ${creation.accepted.length} accepted (201), ` +
      `${creation.refused.length} refused (409 INSUFFICIENT_STOCK), ${creation.failures.length} other; ` +
      `${creation.replays.same} of ${creation.replays.sent} replays answered with their order`,
  );
  log(`    cpu: ${cpuLine(creation.cpu)}`);
  for (const failure of creation.failures.slice(0, 5)) log(`    ${failure}`);
  const check = await checkCreation(dbUrl, site, size, variants, creation);
  for (const wrong of [...check.stockWrong, ...check.refusalsWrong].slice(0, 5)) log(`    ${wrong}`);
  rss.stop();
  log(`  service RSS max ${fmt(rss.max / 2 ** 20)} MB (${rss.samples} samples)`);
  await run.undo(); // the service, its database and the temporary folder, before the next size
  return {
    size,
    load,
    listBytes: listResponse.body.length,
    list,
    creation,
    check,
    rssMb: rss.max / 2 ** 20,
  };
}

/* ---------- report ---------- */

function report(results: SizeResult[]): boolean {
  const share = (pair: { emporium: Run; baseline: Run }) => (100 * pair.emporium.rps) / pair.baseline.rps;
  const signed = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n, 1)}`;
  const lines = [
    '| orders | load time | list page | Emporium req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | Emporium / baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const { emporium: e, baseline: b } = r.list;
    lines.push(
      `| ${sizeLabel(r.size)} | ${fmt(r.load.totalMs / 1000, 1)} s | ${fmt(r.listBytes / 1024)} KB | ${fmt(e.rps)} | ${e.p50} | ${e.p99} | ` +
        `${fmt(b.rps)} | ${b.p50} | ${b.p99} | ${fmt(share(r.list))}% |`,
    );
  }
  lines.push(
    '',
    '| orders | imports/s | p50 ms | p99 ms | accepted (201) | refused (409 stock) | other | orders stored | stock check | service RSS max |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  );
  for (const r of results) {
    const c = r.creation;
    lines.push(
      `| ${sizeLabel(r.size)} | ${fmt(c.created / c.seconds)} | ${fmt(percentile(c.latencies, 50), 1)} | ${fmt(percentile(c.latencies, 99), 1)} | ` +
        `${c.accepted.length} | ${c.refused.length} | ${c.failures.length} | ${r.check.stored} | ` +
        `${r.check.stockWrong.length ? `${r.check.stockWrong.length} wrong` : `all ${r.check.variantsUsed} right`} | ${fmt(r.rssMb)} MB |`,
    );
  }
  log(
    `\n## Results (${duration} s runs, ${connections} connections; ${orderCount} imports after ${createWarmup}, ` +
      `${createConnections} clients; LOG_LEVEL=${logLevel})\n\n${lines.join('\n')}`,
  );

  const big =
    results.find((r) => r.size === 1_000_000) ?? results.reduce((a, b) => (b.size > a.size ? b : a));
  const small = results.find((r) => r.size === 100_000);
  const at = sizeLabel(big.size);
  const checks: [string, boolean | undefined, string][] = [
    [
      `list >= ${TARGETS.listShare * 100}% of baseline at ${at}`,
      big.list.emporium.rps >= TARGETS.listShare * big.list.baseline.rps,
      `${fmt(share(big.list), 1)}% (p99 ${big.list.emporium.p99} ms, baseline ${big.list.baseline.p99} ms)`,
    ],
    [
      // One-sided: the target is about the list slowing down as the orders grow.
      `list req/s at ${at} not more than ${TARGETS.listDrift * 100}% below 100k`,
      small && small !== big
        ? big.list.emporium.rps >= (1 - TARGETS.listDrift) * small.list.emporium.rps
        : undefined,
      small && small !== big
        ? `${fmt(big.list.emporium.rps)} vs ${fmt(small.list.emporium.rps)} req/s ` +
          `(${signed((100 * big.list.emporium.rps) / small.list.emporium.rps - 100)}%; as shares of their ` +
          `baselines ${fmt(share(big.list), 1)}% vs ${fmt(share(small.list), 1)}%)`
        : 'needs --sizes with 100000 and a larger size',
    ],
  ];
  for (const r of results) {
    const c = r.creation;
    const k = r.check;
    checks.push(
      [
        `imports at ${sizeLabel(r.size)}: every answer 201 or 409 INSUFFICIENT_STOCK, replays answered with their order`,
        c.failures.length === 0 && c.replays.same === c.replays.sent,
        `${c.accepted.length} + ${c.refused.length} of ${createWarmup + orderCount}, ${c.failures.length} other; ` +
          `${c.replays.same} of ${c.replays.sent} replays`,
      ],
      [
        `imports at ${sizeLabel(r.size)}: orders in the database == 201 answers, numbered on without gaps`,
        k.stored === c.accepted.length && k.missing === 0 && k.numbersInSequence,
        `${k.stored} stored, ${c.accepted.length} answered 201, ${k.missing} answered but not stored, ` +
          `numbers ${k.numbersInSequence ? `${fmt(r.size + 1)} to ${fmt(r.size + k.stored)}` : 'with gaps'}`,
      ],
      [
        `imports at ${sizeLabel(r.size)}: initial - remaining stock == accepted quantities for every variant, none below zero`,
        k.stockWrong.length === 0 && k.belowZero === 0 && k.variantsUsed > 0,
        `${k.variantsUsed - k.stockWrong.length} of ${k.variantsUsed} variants right, ${k.belowZero} below zero`,
      ],
      [
        `imports at ${sizeLabel(r.size)}: some orders refused, each naming a variant short of stock`,
        c.refused.length > 0 && k.refusalsWrong.length === 0,
        `${c.refused.length} refused, ${k.refusalsWrong.length} naming no variant short of stock`,
      ],
    );
  }
  return verdicts(checks);
}

/* ---------- main ---------- */

log(
  `Emporium orders benchmark: sizes ${sizes.join(', ')}, ${duration} s runs (+${warmup} s warm-up), ` +
    `${connections} connections; ${orderCount} imports (+${createWarmup}) from ${createConnections} clients; ` +
    `${os.cpus().length} cores, node ${process.version}, load average ${fmt(loadAverage(), 2)}; service at ${revision()}`,
);
const results: SizeResult[] = [];
const ok = await run.run(async () => {
  for (const size of sizes) results.push(await runSize(size));
  return report(results);
});
process.exitCode = ok ? 0 : 1;
