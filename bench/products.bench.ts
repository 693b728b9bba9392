/**
 * Products API benchmark: the real service process against a baseline that sends the same bytes
 * from memory, on catalogs of 100k and 1M products. See bench/README.md.
 *
 *   npm run bench -- --sizes 100000,1000000 --duration 15
 *
 * For each size: a new database (the embedded one in a temporary DATA_DIR, or a new database on
 * the server of DATABASE_URL), the service started as `emporium serve`, the catalog bulk-loaded,
 * response bytes captured, then autocannon (50 connections) on the list page and on get-by-id,
 * of 1.1 and of v2 (Products v2 over the same store), each version's Emporium run next to the
 * other's, then the baselines, sequential searches, and the service's peak RSS.
 * Every process started here is stopped by its pid; temporary folders and databases are removed.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fmt, get, log, loadAverage, stopChild } from './harness.ts';
import {
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
import { createSite, loadCatalog, RARE_WORD, type LoadReport } from './load-catalog.ts';

const LIST = '/1.1/commerce/products';
/** Products v2 over the same store: its list page and get by id are measured beside 1.1's. */
const LIST_V2 = '/v2/commerce/products';
/** Searches timed one after the other: the target is on the rare word; the others are for information. */
const SEARCHES = [
  { name: 'rare', query: RARE_WORD },
  { name: 'common', query: 'linen' },
  { name: 'two words', query: 'sweater kyoto' },
] as const;

const TARGETS = {
  loadSecondsAt1M: 180,
  listShare: 0.25,
  listP99Ms: 50,
  /** Get by id, of 1.1 and of v2 each, against the baseline sending the same bytes (issue 16). */
  getShare: 0.7,
  listDrift: 0.2,
  searchP50Ms: 20,
  rssMb: 300,
  /** Products v2's list page within 10% of 1.1's, measured in the same run (at 1M). */
  v2ListRatio: 0.9,
  /** The list with --writes percent of requests writing, against the read-only baseline (issue 35). */
  listWithWritesShare: 0.8,
};

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    duration: { type: 'string', default: '15' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    searches: { type: 'string', default: '200' },
    ids: { type: 'string', default: '1000' },
    'sync-pages': { type: 'string', default: '1000' },
    'log-level': { type: 'string', default: 'info' },
    'cpu-prof': { type: 'string' },
    writes: { type: 'string', default: '10' },
  },
  strict: true,
});

const sizes = parseSizes(args.sizes);
const duration = positive('duration', args.duration);
const connections = positive('connections', args.connections);
const warmup = positive('warmup', args.warmup);
const searches = positive('searches', args.searches);
const sampleIds = positive('ids', args.ids);
const syncPages = positive('sync-pages', args['sync-pages']);
/** Percent of the requests of the last list run that write (renames and stock adjustments). */
const writesPercent = positive('writes', args.writes);
const logLevel = args['log-level'] ?? 'info';
/** A folder for the service's V8 CPU profiles (node --cpu-prof), written when it stops. */
const cpuProfDir = args['cpu-prof'];
const externalDb = process.env.DATABASE_URL || undefined;

// The whole run is bounded: loads, runs and searches, with room to spare.
const run = sizedRun(
  sizes.reduce((sum, size) => sum + 240_000 + size * 0.3 + 9 * (warmup + duration) * 1000, 60_000),
);
const settings = { connections, warmup, duration };

/* ---------- measurement ---------- */

interface Search {
  p50: number;
  p99: number;
  matches: number;
}

async function sequentialSearch(
  port: number,
  word: string,
  headers: Record<string, string>,
): Promise<Search> {
  const url = `${LIST}?query=${encodeURIComponent(word)}`;
  for (let i = 0; i < 10; i++) await get(port, url, headers);
  const times: number[] = [];
  let matches = 0;
  for (let i = 0; i < searches; i++) {
    const response = await get(port, url, headers);
    if (response.status !== 200) throw new Error(`search ${word}: status ${response.status}`);
    times.push(response.ms);
    if (i === 0) matches = (JSON.parse(response.body.toString()) as { products: unknown[] }).products.length;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), matches };
}

interface Sync {
  pages: number;
  products: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** One client paging through the catalog with the cursors, as a sync client does. */
async function syncThrough(port: number, headers: Record<string, string>): Promise<Sync> {
  let next: string | null = LIST;
  const times: number[] = [];
  let products = 0;
  const started = performance.now();
  while (next && times.length < syncPages) {
    const response = await get(port, next, headers);
    if (response.status !== 200) throw new Error(`sync page ${times.length + 1}: status ${response.status}`);
    times.push(response.ms);
    const page = JSON.parse(response.body.toString()) as {
      products: unknown[];
      pagination: { nextPageUrl: string | null };
    };
    products += page.products.length;
    const url = page.pagination.nextPageUrl ? new URL(page.pagination.nextPageUrl) : null;
    next = url ? `${url.pathname}${url.search}` : null;
  }
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  return { pages: times.length, products, seconds, p50: at(0.5), p99: at(0.99) };
}

/* ---------- one catalog size ---------- */

interface Captured {
  /** The first list page as sent, and the ids on it. */
  list: Buffer;
  pageIds: string[];
  /** Each sampled product by id as sent, and the paths the get-by-id runs cycle through. */
  products: Record<string, string>;
  byIdPaths: string[];
}

/** The first list page and the sampled products by id of one API version (`list` its path). */
async function capture(
  port: number,
  list: string,
  rows: { id: string }[],
  headers: Record<string, string>,
): Promise<Captured> {
  const listResponse = await get(port, list, headers);
  if (listResponse.status !== 200)
    throw new Error(`${list}: status ${listResponse.status}: ${listResponse.body}`);
  const page = JSON.parse(listResponse.body.toString()) as {
    products: { id: string }[];
    pagination: { hasNextPage: boolean };
  };
  if (page.products.length !== 50 || !page.pagination.hasNextPage)
    throw new Error(`${list}: not a full page of 50`);
  const products: Record<string, string> = {};
  for (const { id } of rows) {
    const response = await get(port, `${list}/${id}`, headers);
    if (response.status !== 200) throw new Error(`${list}/${id}: status ${response.status}`);
    products[id] = response.body.toString();
  }
  log(
    `  captured ${list}: the list page (${fmt(listResponse.body.length)} bytes) and ${rows.length} products by id` +
      ` (~${fmt(Buffer.byteLength(Object.values(products)[0] ?? ''))} bytes each)`,
  );
  return {
    list: listResponse.body,
    pageIds: page.products.map((product) => product.id),
    products,
    byIdPaths: rows.map(({ id }) => `${list}/${id}`),
  };
}

interface Pair {
  emporium: Run;
  baseline: Run;
}

interface SizeResult {
  size: number;
  load: LoadReport;
  list: Pair;
  byId: Pair;
  listV2: Pair;
  byIdV2: Pair;
  searches: Record<(typeof SEARCHES)[number]['name'], Search>;
  sync: Sync;
  /** The 1.1 list with writes mixed in (--writes), run last. */
  listWithWrites: Run;
  /** Peak RSS over the load-generator runs and searches, and over everything including the sync. */
  rssRunsMb: number;
  rssMaxMb: number;
  listBytes: number;
  listV2Bytes: number;
  /** Cores busy machine-wide in the 2 s before the runs. */
  busyBefore: number;
}

/** Sampled products the run with writes changes. */
const WRITTEN_PRODUCTS = 300;

/**
 * Writes spread over the sampled products, in turn: a rename (1.1 update) and a stock adjustment
 * of one of its variants (a new Idempotency-Key each), each a real change that gives the product a
 * new modifiedOn, so every one of them changes the website's list.
 */
function writeRequests(productIds: string[], variantIds: string[]) {
  return productIds.flatMap((id, i) => [
    {
      path: `${LIST}/${id}`,
      body: JSON.stringify({ name: `Bench rename ${i} ${randomUUID()}` }),
      keyed: false,
    },
    {
      path: '/1.0/commerce/inventory/adjustments',
      body: JSON.stringify({
        incrementOperations: [{ variantId: variantIds[i % variantIds.length], quantity: 1 }],
      }),
      keyed: true,
    },
  ]);
}

async function runSize(size: number): Promise<SizeResult> {
  log(`\n== ${fmt(size)} products ==`);
  const { tmp, port, server, dbUrl, rss } = await startSizeService(run, {
    externalDb,
    logLevel,
    cpuProfDir,
    logs: (files) => (run.logs = files),
  });
  const site = await createSite(dbUrl);
  await waitQuiet('the load', { emporium: server.pid });
  const load = await loadCatalog(dbUrl, site, size, log);
  log(
    `  loaded ${fmt(load.products)} products, ${fmt(load.variants)} variants in ${fmt(load.totalMs / 1000, 1)} s` +
      ` ("${RARE_WORD}" in ${load.rareMatches})`,
  );

  const headers = { authorization: `Bearer ${site.apiKey}`, 'user-agent': 'emporium-bench/1.0' };
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM products WHERE website_id = $1 ORDER BY random() LIMIT $2',
    [site.websiteId, sampleIds],
  );
  // Their variants, which the run with writes adjusts the stock of.
  const { rows: variants } = await client.query<{ id: string }>(
    'SELECT id FROM variants WHERE product_id = ANY($1) ORDER BY id',
    [rows.map((r) => r.id)],
  );
  await client.end();
  const captured = await capture(port, LIST, rows, headers);
  const capturedV2 = await capture(port, LIST_V2, rows, headers);
  // Every product of the catalog is PHYSICAL, which both versions serve: the same page, each its own way.
  if (capturedV2.pageIds.join() !== captured.pageIds.join())
    throw new Error('v2 list: not the products of the 1.1 list page');

  const baselines = {
    '1.1': await startBaseline(run, tmp, LIST, captured),
    v2: await startBaseline(run, fs.mkdtempSync(path.join(tmp, 'v2-')), LIST_V2, capturedV2),
  };
  const baselinePort = baselines['1.1'].port;
  const baselineV2Port = baselines.v2.port;

  // Other work on the machine (or a checkpoint after the load) would distort the runs: wait for quiet.
  const named = {
    emporium: server.pid,
    baseline: baselines['1.1'].child.pid,
    'baseline v2': baselines.v2.child.pid,
  };
  const before = await waitQuiet('the runs', named);
  // Interleaved: the two versions' Emporium runs one right after the other, so that their ratio
  // spans as little of the machine's drift as can be; the baselines after.
  const listEmporium = await measure(settings, 'list  emporium', port, [LIST], headers, named);
  const listV2Emporium = await measure(settings, 'list  emporium v2', port, [LIST_V2], headers, named);
  const list = {
    emporium: listEmporium,
    baseline: await measure(settings, 'list  baseline', baselinePort, [LIST], headers, named),
  };
  const listV2 = {
    emporium: listV2Emporium,
    baseline: await measure(settings, 'list  baseline v2', baselineV2Port, [LIST_V2], headers, named),
  };
  const byIdEmporium = await measure(settings, 'by id emporium', port, captured.byIdPaths, headers, named);
  const byIdV2Emporium = await measure(
    settings,
    'by id emporium v2',
    port,
    capturedV2.byIdPaths,
    headers,
    named,
  );
  const byId = {
    emporium: byIdEmporium,
    baseline: await measure(settings, 'by id baseline', baselinePort, captured.byIdPaths, headers, named),
  };
  const byIdV2 = {
    emporium: byIdV2Emporium,
    baseline: await measure(
      settings,
      'by id baseline v2',
      baselineV2Port,
      capturedV2.byIdPaths,
      headers,
      named,
    ),
  };
  log(
    `  v2 / 1.1: list ${fmt((100 * listV2.emporium.rps) / list.emporium.rps, 1)}%, ` +
      `get by id ${fmt((100 * byIdV2.emporium.rps) / byId.emporium.rps, 1)}%`,
  );
  for (const { child } of Object.values(baselines)) await stopChild(child, 10_000);

  const searchResults = {} as SizeResult['searches'];
  for (const { name, query } of SEARCHES) {
    const result = await sequentialSearch(port, query, headers);
    searchResults[name] = result;
    log(
      `  search "${query}" (${result.matches} on the page): p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms`,
    );
  }

  const rssRuns = rss.max;
  const sync = await syncThrough(port, headers);
  log(
    `  sync: ${sync.pages} pages (${fmt(sync.products)} products) one after the other in ${fmt(sync.seconds, 1)} s, ` +
      `p50 ${fmt(sync.p50, 1)} ms, p99 ${fmt(sync.p99, 1)} ms a page`,
  );
  rss.stop();
  log(
    `  service RSS max ${fmt(rssRuns / 2 ** 20)} MB over the runs and searches, ` +
      `${fmt(rss.max / 2 ** 20)} MB with the sync (${rss.samples} samples)`,
  );

  // Last, since it changes the catalog: the list with writes mixed in, each of which changes it.
  const listWithWrites = await measure(
    settings,
    `list  +${writesPercent}% writes`,
    port,
    [LIST],
    headers,
    { emporium: server.pid },
    {
      every: Math.max(2, Math.round(100 / writesPercent)),
      headers: { authorization: `Bearer ${site.writeKey}` },
      // 300 products' worth: the load generator gets its input as one argument, at most 128 KB.
      requests: writeRequests(
        rows.slice(0, WRITTEN_PRODUCTS).map((r) => r.id),
        variants.map((v) => v.id),
      ),
    },
  );
  log(
    `  with ${writesPercent}% writes: ${fmt((100 * listWithWrites.rps) / list.baseline.rps, 1)}% of the list baseline's ` +
      `rate (reads alone ${fmt((100 * (listWithWrites.readsPerSecond ?? 0)) / list.baseline.rps, 1)}%)`,
  );
  await run.undo(); // the service, its database and the temporary folder, before the next size
  return {
    size,
    load,
    list,
    listWithWrites,
    byId,
    listV2,
    byIdV2,
    searches: searchResults,
    sync,
    rssRunsMb: rssRuns / 2 ** 20,
    rssMaxMb: rss.max / 2 ** 20,
    listBytes: captured.list.length,
    listV2Bytes: capturedV2.list.length,
    busyBefore: before.busy,
  };
}

/* ---------- report ---------- */

function report(results: SizeResult[]): boolean {
  const share = (pair: { emporium: Run; baseline: Run }) => (100 * pair.emporium.rps) / pair.baseline.rps;
  const ratio = (v2: Pair, v11: Pair) => (100 * v2.emporium.rps) / v11.emporium.rps;
  const signed = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n, 1)}`;
  const lines = [
    '| catalog | endpoint | Emporium req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | Emporium / baseline |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    for (const [name, pair] of [
      ['list (50 a page)', r.list],
      ['v2 list (50 a page)', r.listV2],
      ['get by id', r.byId],
      ['v2 get by id', r.byIdV2],
    ] as const) {
      lines.push(
        `| ${sizeLabel(r.size)} | ${name} | ${fmt(pair.emporium.rps)} | ${pair.emporium.p50} | ${pair.emporium.p99} | ` +
          `${fmt(pair.baseline.rps)} | ${pair.baseline.p50} | ${pair.baseline.p99} | ${fmt((100 * pair.emporium.rps) / pair.baseline.rps)}% |`,
      );
    }
  }
  lines.push(
    '',
    '| catalog | list page bytes 1.1 / v2 | v2 / 1.1 list req/s | v2 / 1.1 get by id req/s | v2 / 1.1 list, as shares of their baselines |',
    '|---|---:|---:|---:|---:|',
  );
  for (const r of results) {
    lines.push(
      `| ${sizeLabel(r.size)} | ${fmt(r.listBytes)} / ${fmt(r.listV2Bytes)} | ${fmt(ratio(r.listV2, r.list), 1)}% | ` +
        `${fmt(ratio(r.byIdV2, r.byId), 1)}% | ${fmt((100 * share(r.listV2)) / share(r.list), 1)}% |`,
    );
  }
  lines.push(
    '',
    `| catalog | load time | ${SEARCHES.map(({ query }) => `search "${query}" p50 / p99 ms (on the page)`).join(' | ')} |`,
    `|---|---:|${SEARCHES.map(() => '---:|').join('')}`,
  );
  for (const r of results) {
    const searchCells = SEARCHES.map(({ name }) => {
      const search = r.searches[name];
      return `${fmt(search.p50, 1)} / ${fmt(search.p99, 1)} (${search.matches})`;
    });
    lines.push(`| ${sizeLabel(r.size)} | ${fmt(r.load.totalMs / 1000, 1)} s | ${searchCells.join(' | ')} |`);
  }
  lines.push(
    '',
    '| catalog | sync: pages one after the other | pages/s | p50 / p99 ms a page | service RSS max: runs and searches | with the sync |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const r of results) {
    lines.push(
      `| ${sizeLabel(r.size)} | ${r.sync.pages} (${fmt(r.sync.products)} products) | ${fmt(r.sync.pages / r.sync.seconds)} | ` +
        `${fmt(r.sync.p50, 1)} / ${fmt(r.sync.p99, 1)} | ${fmt(r.rssRunsMb)} MB | ${fmt(r.rssMaxMb)} MB |`,
    );
  }
  log(
    `\n## Results (${duration} s runs, ${connections} connections, LOG_LEVEL=${logLevel})\n\n${lines.join('\n')}`,
  );

  const big =
    results.find((r) => r.size === 1_000_000) ?? results.reduce((a, b) => (b.size > a.size ? b : a));
  const small = results.find((r) => r.size === 100_000);
  const at = sizeLabel(big.size);
  const checks: [string, boolean | undefined, string][] = [
    [
      `load of ${at} < ${TARGETS.loadSecondsAt1M} s`,
      big.size === 1_000_000 ? big.load.totalMs / 1000 < TARGETS.loadSecondsAt1M : undefined,
      `${fmt(big.load.totalMs / 1000, 1)} s`,
    ],
    [
      `list >= ${TARGETS.listShare * 100}% of baseline at ${at}`,
      big.list.emporium.rps >= TARGETS.listShare * big.list.baseline.rps,
      `${fmt((100 * big.list.emporium.rps) / big.list.baseline.rps, 1)}%`,
    ],
    ...results.map((r): [string, boolean, string] => [
      `list with ${writesPercent}% of requests writing >= ${TARGETS.listWithWritesShare * 100}% of the read-only baseline at ${sizeLabel(r.size)}`,
      r.listWithWrites.rps >= TARGETS.listWithWritesShare * r.list.baseline.rps,
      `${fmt((100 * r.listWithWrites.rps) / r.list.baseline.rps, 1)}% (${fmt(r.listWithWrites.readsPerSecond ?? 0)} reads and ` +
        `${fmt(r.listWithWrites.writesPerSecond ?? 0)} writes a second, baseline ${fmt(r.list.baseline.rps)})`,
    ]),
    [
      `list p99 < ${TARGETS.listP99Ms} ms at ${at}`,
      big.list.emporium.p99 < TARGETS.listP99Ms,
      `${big.list.emporium.p99} ms`,
    ],
    ...(
      [
        ['get by id', big.byId],
        ['v2 get by id', big.byIdV2],
      ] as const
    ).map(([name, pair]): [string, boolean, string] => [
      `${name} >= ${TARGETS.getShare * 100}% of baseline at ${at}`,
      pair.emporium.rps >= TARGETS.getShare * pair.baseline.rps,
      `${fmt(share(pair), 1)}%`,
    ]),
    [
      // One-sided: the target is about the list slowing down as the catalog grows.
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
    [
      `v2 list req/s >= ${TARGETS.v2ListRatio * 100}% of 1.1's at ${at}, same run`,
      big.listV2.emporium.rps >= TARGETS.v2ListRatio * big.list.emporium.rps,
      `${fmt(big.listV2.emporium.rps)} vs ${fmt(big.list.emporium.rps)} req/s (${fmt(ratio(big.listV2, big.list), 1)}%; ` +
        `as shares of their baselines ${fmt(share(big.listV2), 1)}% vs ${fmt(share(big.list), 1)}%)`,
    ],
    [
      `search "${RARE_WORD}" p50 < ${TARGETS.searchP50Ms} ms at ${at}`,
      big.searches.rare.p50 < TARGETS.searchP50Ms,
      `${fmt(big.searches.rare.p50, 2)} ms`,
    ],
    [
      `service RSS < ${TARGETS.rssMb} MB (everything the benchmark does, sync included)`,
      Math.max(...results.map((r) => r.rssMaxMb)) < TARGETS.rssMb,
      `${fmt(Math.max(...results.map((r) => r.rssMaxMb)))} MB ` +
        `(${fmt(Math.max(...results.map((r) => r.rssRunsMb)))} MB over the runs and searches alone)`,
    ],
  ];
  return verdicts(checks);
}

/* ---------- main ---------- */

log(
  `Emporium products benchmark: sizes ${sizes.join(', ')}, ${duration} s runs (+${warmup} s warm-up), ` +
    `${connections} connections; ${os.cpus().length} cores, node ${process.version}, ` +
    `load average ${fmt(loadAverage(), 2)}; service at ${revision()}`,
);
const results: SizeResult[] = [];
const ok = await run.run(async () => {
  for (const size of sizes) results.push(await runSize(size));
  return report(results);
});
process.exitCode = ok ? 0 : 1;
