/**
 * Products API benchmark: the real service process against a baseline that sends the same bytes
 * from memory, on catalogs of 100k and 1M products. See bench/README.md.
 *
 *   npm run bench -- --sizes 100000,1000000 --duration 15
 *
 * For each size: a new database (the embedded one in a temporary DATA_DIR, or a new database on
 * the server of DATABASE_URL), the service started as `emporium serve`, the catalog bulk-loaded,
 * response bytes captured, then autocannon (50 connections) on the list page and on get-by-id,
 * Emporium and baseline one after the other, sequential searches, and the service's peak RSS.
 * Every process started here is stopped by its pid; temporary folders and databases are removed.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbedded } from '../packages/server/src/db/embedded.ts';
import {
  closeConnections,
  cpuMeter,
  fmt,
  freePort,
  get,
  log,
  loadAverage,
  rssSampler,
  runLoadgen,
  sleep,
  startNode,
  startService,
  stopChild,
  stopService,
  waitReady,
  type CpuShare,
} from './harness.ts';
import { createSite, loadCatalog, RARE_WORD, type LoadReport } from './load-catalog.ts';
import type { LoadgenInput } from './loadgen.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASELINE = path.join(ROOT, 'bench/baseline-server.ts');
const LIST = '/1.1/commerce/products';
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
  getShare: 0.4,
  listDrift: 0.2,
  searchP50Ms: 20,
  rssMb: 300,
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
  },
  strict: true,
});

function positive(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name}: a positive whole number, got "${raw}"`);
  return value;
}

const sizes = (args.sizes ?? '').split(',').map((s) => positive('sizes', s.replace(/_/g, '').trim()));
const duration = positive('duration', args.duration);
const connections = positive('connections', args.connections);
const warmup = positive('warmup', args.warmup);
const searches = positive('searches', args.searches);
const sampleIds = positive('ids', args.ids);
const syncPages = positive('sync-pages', args['sync-pages']);
const logLevel = args['log-level'] ?? 'info';
/** A folder for the service's V8 CPU profiles (node --cpu-prof), written when it stops. */
const cpuProfDir = args['cpu-prof'];
const externalDb = process.env.DATABASE_URL || undefined;

/* ---------- cleanup: everything started is undone in reverse order, once ---------- */

const cleanups: (() => Promise<void>)[] = [];
let cleaning: Promise<void> | undefined;
let interrupted = false;
/** Log files of the processes of the size being run, shown if the benchmark fails. */
let currentLogs: string[] = [];
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (let fn = cleanups.pop(); fn; fn = cleanups.pop()) {
      try {
        await fn();
      } catch (error) {
        process.stderr.write(`cleanup: ${(error as Error).message}\n`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping what the benchmark started\n`);
    void cleanup().finally(() => process.exit(130));
  });
}
// The whole run is bounded: loads, runs and searches, with room to spare.
const limitMs = sizes.reduce(
  (sum, size) => sum + 240_000 + size * 0.3 + 4 * (warmup + duration) * 1000,
  60_000,
);
const watchdog = setTimeout(() => {
  process.stderr.write(
    `\nthe benchmark ran past its time limit (${Math.round(limitMs / 1000)} s); stopping\n`,
  );
  void cleanup().finally(() => process.exit(1));
}, limitMs);

/* ---------- measurement ---------- */

interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
  mbPerSec: number;
  cpu: CpuShare;
}

/** One autocannon run in its own process (bench/loadgen.ts), with the CPU use of everyone meanwhile. */
async function cannon(
  port: number,
  paths: string[],
  headers: Record<string, string>,
  seconds: number,
  named: Record<string, number>,
): Promise<Run> {
  const input: LoadgenInput = { port, paths, headers, seconds, connections };
  const meter = cpuMeter(named);
  const started = performance.now();
  const result = await runLoadgen(input);
  const cpu = meter();
  // The load generator has exited, so it reports its own CPU time.
  cpu.groups.loadgen = result.cpuSeconds / ((performance.now() - started) / 1000);
  return {
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    requests: result.ok,
    failures: result.failures,
    mbPerSec: result.bytesPerSecond / 1e6,
    cpu,
  };
}

const unattributed = (cpu: CpuShare) => cpu.busy - Object.values(cpu.groups).reduce((a, b) => a + b, 0);

/** Warm-up, then the measured run. */
async function measure(
  label: string,
  port: number,
  paths: string[],
  headers: Record<string, string>,
  named: Record<string, number>,
): Promise<Run> {
  await cannon(port, paths, headers, warmup, named);
  const run = await cannon(port, paths, headers, duration, named);
  const cpu = Object.entries(run.cpu.groups)
    .filter(([, cores]) => cores >= 0.01)
    .map(([group, cores]) => `${group} ${fmt(cores * 100)}%`)
    .concat(
      `machine busy ${fmt(run.cpu.busy * 100)}%`,
      // Processes that started and ended within the run are not seen by name.
      unattributed(run.cpu) >= 0.05 ? [`unattributed ${fmt(unattributed(run.cpu) * 100)}%`] : [],
      `idle ${fmt(run.cpu.idle * 100)}%`,
      run.cpu.steal >= 0.01 ? [`steal ${fmt(run.cpu.steal * 100)}%`] : [],
    )
    .join(', ');
  log(
    `  ${label.padEnd(22)} ${fmt(run.rps).padStart(7)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms` +
      `  ${fmt(run.mbPerSec, 1)} MB/s  failures ${run.failures}  cpu: ${cpu}`,
  );
  if (run.failures > 0) throw new Error(`${label}: ${run.failures} failed requests`);
  return run;
}

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

/**
 * Samples the machine for 2 s until it is quiet (under 0.3 cores busy), for at most 90 s, and
 * says what it saw: runs measured on a busy machine are reported as such, not silently.
 */
async function waitQuiet(what: string, named: Record<string, number>): Promise<CpuShare> {
  const until = Date.now() + 90_000;
  for (;;) {
    const meter = cpuMeter(named);
    await sleep(2000);
    const share = meter();
    const busy = `machine busy ${fmt(share.busy * 100)}% (postgres ${fmt((share.groups.postgres ?? 0) * 100)}%, other processes ${fmt((share.groups.other ?? 0) * 100)}%)`;
    if (share.busy < 0.3) {
      log(`  before ${what}, 2 s: ${busy}`);
      return share;
    }
    if (Date.now() > until) {
      log(`  WARNING: the machine is still busy before ${what} after 90 s: ${busy}; measuring anyway`);
      return share;
    }
    log(`  waiting for the machine to quiet down before ${what}: ${busy}`);
  }
}

/* ---------- one catalog size ---------- */

interface SizeResult {
  size: number;
  load: LoadReport;
  list: { emporium: Run; baseline: Run };
  byId: { emporium: Run; baseline: Run };
  searches: Record<(typeof SEARCHES)[number]['name'], Search>;
  sync: Sync;
  /** Peak RSS over the load-generator runs and searches, and over everything including the sync. */
  rssRunsMb: number;
  rssMaxMb: number;
  listBytes: number;
  /** Cores busy machine-wide in the 2 s before the runs. */
  busyBefore: number;
}

function databaseUrlOn(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function runSize(size: number): Promise<SizeResult> {
  log(`\n== ${fmt(size)} products ==`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-'));
  fs.chmodSync(tmp, 0o755); // the embedded PostgreSQL runs as the user "postgres" (as root)
  cleanups.push(async () => fs.rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');

  let serviceDbUrl: string | undefined;
  if (externalDb) {
    const name = `emporium_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: externalDb });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: externalDb });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    });
    serviceDbUrl = databaseUrlOn(externalDb, name);
  }

  const port = await freePort();
  currentLogs = [path.join(tmp, 'emporium.log'), path.join(tmp, 'data', 'postgres', 'server.log')];
  const server = startService({
    port,
    dataDir,
    logFile: path.join(tmp, 'emporium.log'),
    nodeOptions: cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfDir)}`] : [],
    env: { DATABASE_URL: serviceDbUrl ?? '', LOG_LEVEL: logLevel },
  });
  cleanups.push(() => stopService(server, dataDir));
  const rss = rssSampler(server.pid);
  cleanups.push(async () => rss.stop());
  await waitReady(server, port, '/readyz', 120_000);
  log(
    `  service pid ${server.pid} on 127.0.0.1:${port} (LOG_LEVEL=${logLevel}, ${serviceDbUrl ? 'DATABASE_URL' : 'embedded PostgreSQL'})`,
  );

  // The loader attaches to the service's embedded server (startEmbedded finds it running).
  const dbUrl = serviceDbUrl ?? (await startEmbedded(dataDir)).url;
  const site = await createSite(dbUrl);
  await waitQuiet('the load', { emporium: server.pid });
  const load = await loadCatalog(dbUrl, site, size, log);
  log(
    `  loaded ${fmt(load.products)} products, ${fmt(load.variants)} variants in ${fmt(load.totalMs / 1000, 1)} s` +
      ` ("${RARE_WORD}" in ${load.rareMatches})`,
  );

  const headers = { authorization: `Bearer ${site.apiKey}`, 'user-agent': 'emporium-bench/1.0' };
  const listResponse = await get(port, LIST, headers);
  if (listResponse.status !== 200)
    throw new Error(`list: status ${listResponse.status}: ${listResponse.body}`);
  const page = JSON.parse(listResponse.body.toString()) as {
    products: unknown[];
    pagination: { hasNextPage: boolean };
  };
  if (page.products.length !== 50 || !page.pagination.hasNextPage)
    throw new Error('list: not a full page of 50');

  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM products WHERE website_id = $1 ORDER BY random() LIMIT $2',
    [site.websiteId, sampleIds],
  );
  await client.end();
  const products: Record<string, string> = {};
  for (const { id } of rows) {
    const response = await get(port, `${LIST}/${id}`, headers);
    if (response.status !== 200) throw new Error(`get ${id}: status ${response.status}`);
    products[id] = response.body.toString();
  }
  const byIdPaths = rows.map(({ id }) => `${LIST}/${id}`);
  const bodiesFile = path.join(tmp, 'bodies.json');
  fs.writeFileSync(bodiesFile, JSON.stringify({ list: listResponse.body.toString(), products }));
  log(
    `  captured the list page (${fmt(listResponse.body.length)} bytes) and ${rows.length} products by id` +
      ` (~${fmt(Buffer.byteLength(Object.values(products)[0] ?? ''))} bytes each)`,
  );

  const baselinePort = await freePort();
  const baseline = startNode('baseline', ['--import', 'tsx', BASELINE], {
    cwd: ROOT,
    logFile: path.join(tmp, 'baseline.log'),
    env: { ...process.env, PORT: String(baselinePort), BASELINE_BODIES: bodiesFile },
  });
  cleanups.push(async () => void (await stopChild(baseline, 10_000)));
  await waitReady(baseline, baselinePort, LIST, 30_000);
  const same = await get(baselinePort, LIST, {});
  if (!same.body.equals(listResponse.body)) throw new Error('the baseline does not send the captured bytes');

  // Other work on the machine (or a checkpoint after the load) would distort the runs: wait for quiet.
  const before = await waitQuiet('the runs', { emporium: server.pid, baseline: baseline.pid });
  const named = { emporium: server.pid, baseline: baseline.pid };
  const list = {
    emporium: await measure('list  emporium', port, [LIST], headers, named),
    baseline: await measure('list  baseline', baselinePort, [LIST], headers, named),
  };
  const byId = {
    emporium: await measure('by id emporium', port, byIdPaths, headers, named),
    baseline: await measure('by id baseline', baselinePort, byIdPaths, headers, named),
  };
  await stopChild(baseline, 10_000);

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
  await cleanup(); // the service, its database and the temporary folder, before the next size
  cleaning = undefined;
  return {
    size,
    load,
    list,
    byId,
    searches: searchResults,
    sync,
    rssRunsMb: rssRuns / 2 ** 20,
    rssMaxMb: rss.max / 2 ** 20,
    listBytes: listResponse.body.length,
    busyBefore: before.busy,
  };
}

/* ---------- report ---------- */

function report(results: SizeResult[]): boolean {
  const share = (pair: { emporium: Run; baseline: Run }) => (100 * pair.emporium.rps) / pair.baseline.rps;
  const signed = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n, 1)}`;
  const sizeLabel = (n: number) => (n >= 1e6 ? `${fmt(n / 1e6, n % 1e6 ? 1 : 0)}M` : `${fmt(n / 1e3)}k`);
  const lines = [
    '| catalog | endpoint | Emporium req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | Emporium / baseline |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    for (const [name, pair] of [
      ['list (50 a page)', r.list],
      ['get by id', r.byId],
    ] as const) {
      lines.push(
        `| ${sizeLabel(r.size)} | ${name} | ${fmt(pair.emporium.rps)} | ${pair.emporium.p50} | ${pair.emporium.p99} | ` +
          `${fmt(pair.baseline.rps)} | ${pair.baseline.p50} | ${pair.baseline.p99} | ${fmt((100 * pair.emporium.rps) / pair.baseline.rps)}% |`,
      );
    }
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
    [
      `list p99 < ${TARGETS.listP99Ms} ms at ${at}`,
      big.list.emporium.p99 < TARGETS.listP99Ms,
      `${big.list.emporium.p99} ms`,
    ],
    [
      `get by id >= ${TARGETS.getShare * 100}% of baseline at ${at}`,
      big.byId.emporium.rps >= TARGETS.getShare * big.byId.baseline.rps,
      `${fmt((100 * big.byId.emporium.rps) / big.byId.baseline.rps, 1)}%`,
    ],
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
  log('\n## Targets\n');
  for (const [name, ok, value] of checks)
    log(`${ok === undefined ? 'SKIP' : ok ? 'PASS' : 'FAIL'}  ${name}: ${value}`);
  return checks.every(([, ok]) => ok !== false);
}

/* ---------- main ---------- */

/** The service's revision, so figures can be tied to the code they measured. */
function revision(): string {
  try {
    const git = (...a: string[]) =>
      execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', timeout: 5000 }).trim();
    const dirty = git('status', '--porcelain', '--', 'packages/server') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in packages/server' : ''}`;
  } catch {
    return 'unknown revision';
  }
}

log(
  `Emporium products benchmark: sizes ${sizes.join(', ')}, ${duration} s runs (+${warmup} s warm-up), ` +
    `${connections} connections; ${os.cpus().length} cores, node ${process.version}, ` +
    `load average ${fmt(loadAverage(), 2)}; service at ${revision()}`,
);
const results: SizeResult[] = [];
let ok = false;
try {
  for (const size of sizes) results.push(await runSize(size));
  ok = report(results);
} catch (error) {
  if (!interrupted) {
    process.stderr.write(`\nbenchmark failed: ${(error as Error).stack ?? error}\n`);
    for (const file of currentLogs) {
      if (!fs.existsSync(file)) continue;
      const tail = fs.readFileSync(file, 'utf8').split('\n').slice(-25).join('\n');
      process.stderr.write(`\n--- last lines of ${file}\n${tail}\n`);
    }
  }
} finally {
  await cleanup();
  closeConnections();
  clearTimeout(watchdog);
}
process.exitCode = ok ? 0 : 1;
