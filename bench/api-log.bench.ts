/**
 * What the request log costs the Products benchmark's throughput (issue 33: at most 5%). Two
 * service processes on one catalog and one database, one with the log (API_LOG=true, the
 * default) and one without (API_LOG=false), measured in short runs that alternate between them
 * (A B, then B A, round after round). The speed of this machine's cores drifts by a fifth from
 * one minute to the next, which runs minutes apart cannot tell from a cost of 5%; runs seconds
 * apart see the same drift. See bench/README.md, "The request log".
 *
 *   npm run bench:api-log                       # = node --import tsx bench/api-log.bench.ts
 *   npm run bench:api-log -- --rounds 4 --duration 2 --size 10000     # a quick look
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fmt, get, log, loadAverage, startService, stopService, waitReady, freePort } from './harness.ts';
import {
  measure,
  positive,
  revision,
  sizedRun,
  startSizeService,
  verdicts,
  waitQuiet,
  type Run,
} from './list-runs.ts';
import { createSite, loadCatalog } from './load-catalog.ts';
import { ApiLog } from '../packages/server/src/api-log/api-log.ts';
import { DEFAULT_API_LOG_LINES_PER_SECOND as LINES_PER_SECOND } from '../packages/server/src/config.ts';
import { openDatabase } from '../packages/server/src/db/database.ts';
import { ShiftedClock, systemClock } from '../packages/server/src/shared/clock.ts';

/** The most the log may cost a run's throughput. */
const TARGET_COST = 0.05;

const { values: args } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '8' },
    duration: { type: 'string', default: '4' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
  },
  strict: true,
});
const size = positive('size', args.size);
const rounds = positive('rounds', args.rounds);
const settings = {
  connections: positive('connections', args.connections),
  warmup: positive('warmup', args.warmup),
  duration: positive('duration', args.duration),
};
const ENDPOINTS = [
  { name: 'list', path: '/1.1/commerce/products' },
  { name: 'v2 list', path: '/v2/commerce/products' },
  { name: 'get by id', path: '/1.1/commerce/products/' },
] as const;

const run = sizedRun(
  300_000 + size * 0.3 + ENDPOINTS.length * rounds * 2 * (settings.warmup + settings.duration + 3) * 1000,
);

interface Series {
  on: Run[];
  off: Run[];
}

/** Requests a second over all of a setting's runs: every run weighs by its length, which is the same. */
const mean = (runs: Run[]) => runs.reduce((sum, r) => sum + r.rps, 0) / runs.length;

function report(results: Record<string, Series>, costs: Record<string, LineCost>, unkeptNs: number): boolean {
  const pct = (x: number) => `${fmt(100 * x, 1)}%`;
  const lines = [
    '| endpoint | log on req/s | log off req/s | cost | cost of each round, lowest / median / highest |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [name, { on, off }] of Object.entries(results)) {
    const each = on.map((r, i) => 1 - r.rps / off[i]!.rps).sort((a, b) => a - b);
    lines.push(
      `| ${name} | ${fmt(mean(on))} | ${fmt(mean(off))} | ${pct(1 - mean(on) / mean(off))} | ` +
        `${pct(each[0]!)} / ${pct(each[Math.floor(each.length / 2)]!)} / ${pct(each.at(-1)!)} |`,
    );
  }
  log(
    `\n## Alternating runs (${rounds} rounds of ${settings.duration} s runs, ${settings.connections} connections)\n`,
  );
  log(lines.join('\n'));

  // The log keeps at most LINES_PER_SECOND lines a second whatever the load, so what it can take
  // from the service and the database is that many lines' CPU a second, plus the hooks' look at
  // every request. The list's throughput is bounded by one core (the service's, or the load
  // generator's when it is the slower): that CPU is at most that share of it.
  const bound = [
    '| answer logged | service ms a line | database ms a line | CPU a second at the kept rate | hooks a request (not kept) | bound on the cost |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  const checks: [string, boolean, string][] = [];
  for (const [name, cost] of Object.entries(costs)) {
    const offRps = mean(results[name]!.off);
    const share = (LINES_PER_SECOND * (cost.serviceMs + cost.databaseMs)) / 1000 + (offRps * unkeptNs) / 1e9;
    bound.push(
      `| ${name} | ${fmt(cost.serviceMs, 3)} | ${fmt(cost.databaseMs, 3)} | ` +
        `${fmt(LINES_PER_SECOND * (cost.serviceMs + cost.databaseMs))} ms | ${fmt(unkeptNs)} ns | ${pct(share)} |`,
    );
    checks.push([
      `the request log costs ${name} at most ${TARGET_COST * 100}% (bound)`,
      share <= TARGET_COST,
      pct(share),
    ]);
  }
  log(`\n## The log's own work (${LINES_PER_SECOND} lines a second kept)\n`);
  log(bound.join('\n'));
  return verdicts(checks);
}

/** CPU seconds a process has used so far (utime + stime, in ticks of 10 ms). */
function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface LineCost {
  /** CPU milliseconds a kept line costs the service: redaction, the row, the driver. */
  serviceMs: number;
  /** ...and the database's backend: the INSERT, its TOAST and WAL. */
  databaseMs: number;
}

/**
 * What one kept line costs, measured without a load generator: the service's writer (ApiLog's
 * own batch insert, as the service runs it) given lines whose answers are the captured bytes, in
 * batches of a flush's worth at the kept rate, its CPU and that of its database backend counted.
 * Independent of the machine's drift between runs, since no throughput is compared.
 */
async function lineCost(dbUrl: string, websiteId: string, keyId: string, answer: Buffer, path: string) {
  const handle = openDatabase(dbUrl, { max: 1 });
  try {
    const writer = new ApiLog({
      db: handle.db,
      clock: new ShiftedClock(systemClock),
      linesPerSecond: LINES_PER_SECOND,
    });
    const { rows } = await handle.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0]!.pid;
    const perFlush = Math.max(1, Math.round(LINES_PER_SECOND / 5)); // a flush every 200 ms
    const line = (i: number) => ({
      websiteId,
      at: Date.now(),
      method: 'GET',
      path,
      status: 200,
      latencyMs: 4.2,
      contextId: `bench-${i}`,
      kind: 'api_key' as const,
      credentialId: keyId,
      fault: undefined,
      requestBody: undefined,
      responseBody: answer,
    });
    const batches = 60;
    const insert = (batch: ReturnType<typeof line>[]) => writer['insert'](batch); // the writer's own path
    await insert([line(0)]); // connection and statement warm
    const service = process.cpuUsage();
    const database = cpuSecondsOf(backend);
    for (let b = 0; b < batches; b++) {
      await insert(Array.from({ length: perFlush }, (_, i) => line(b * perFlush + i)));
    }
    const used = process.cpuUsage(service);
    const lines = batches * perFlush;
    return {
      serviceMs: (used.user + used.system) / 1000 / lines,
      databaseMs: ((cpuSecondsOf(backend) - database) * 1000) / lines,
    };
  } finally {
    await handle.close();
  }
}

/**
 * What the hooks cost a request whose line is not kept (the allowance spent, as under load): the
 * onSend's look at the allowance and the onResponse's, in nanoseconds a request.
 */
function unkeptCostNs(): number {
  const writer = new ApiLog({
    db: undefined as never,
    clock: new ShiftedClock(systemClock),
    linesPerSecond: LINES_PER_SECOND,
  });
  const take = () => writer['take'](); // the hooks' own check; the onSend's refill is the same arithmetic
  while (take()) {
    // spending the burst
  }
  const calls = 2_000_000;
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) take();
  const used = process.cpuUsage(started);
  return ((used.user + used.system) * 1000 * 2) / calls; // two looks a request
}

async function body(): Promise<boolean> {
  // The service without the log owns the embedded database; the one with it attaches to it.
  const off = await startSizeService(run, {
    externalDb: process.env.DATABASE_URL || undefined,
    logLevel: 'info',
    cpuProfDir: undefined,
    env: { API_LOG: 'false' },
    logs: (files) => (run.logs = files),
  });
  const onPort = await freePort();
  const on = startService({
    port: onPort,
    dataDir: off.dataDir,
    logFile: path.join(off.tmp, 'emporium-log-on.log'),
    env: { API_LOG: 'true', DATABASE_URL: process.env.DATABASE_URL ? off.dbUrl : '' },
  });
  run.add(() => stopService(on, off.dataDir));
  await waitReady(on, onPort, '/readyz', 120_000);
  const site = await createSite(off.dbUrl);
  const load = await loadCatalog(off.dbUrl, site, size, log);
  log(
    `  loaded ${fmt(load.products)} products in ${fmt(load.totalMs / 1000, 1)} s; log on at :${onPort}, off at :${off.port}`,
  );

  const client = new pg.Client({ connectionString: off.dbUrl });
  await client.connect();
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM products WHERE website_id = $1 ORDER BY random() LIMIT 500',
    [site.websiteId],
  );
  const key = await client.query<{ id: string }>('SELECT id FROM api_keys WHERE website_id = $1', [
    site.websiteId,
  ]);
  await client.end();
  const headers = { authorization: `Bearer ${site.apiKey}`, 'user-agent': 'emporium-bench/1.0' };
  const pathsOf = (endpoint: (typeof ENDPOINTS)[number]) =>
    endpoint.name === 'get by id' ? rows.map((r) => endpoint.path + r.id) : [endpoint.path];

  const costs: Record<string, LineCost> = {};
  for (const endpoint of ENDPOINTS) {
    const path = pathsOf(endpoint)[0]!;
    const answer = await get(off.port, path, headers);
    if (answer.status !== 200) throw new Error(`${path}: status ${answer.status}`);
    costs[endpoint.name] = await lineCost(off.dbUrl, site.websiteId, key.rows[0]!.id, answer.body, path);
    log(
      `  a kept line of ${endpoint.name} (${fmt(answer.body.length)} bytes): ` +
        `service ${fmt(costs[endpoint.name]!.serviceMs, 3)} ms, database ${fmt(costs[endpoint.name]!.databaseMs, 3)} ms`,
    );
  }
  const unkeptNs = unkeptCostNs();
  log(`  a request whose line is not kept: ${fmt(unkeptNs)} ns in the hooks`);

  const named = { 'log on': on.pid, 'log off': off.server.pid };
  await waitQuiet('the runs', named);

  const results: Record<string, Series> = {};
  for (const endpoint of ENDPOINTS) {
    const paths = pathsOf(endpoint);
    const series: Series = { on: [], off: [] };
    for (let round = 1; round <= rounds; round++) {
      // A B, then B A: neither setting always runs first.
      const order = round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const setting of order) {
        const port = setting === 'on' ? onPort : off.port;
        const label = `${endpoint.name} log ${setting} #${round}`;
        series[setting].push(await measure(settings, label, port, paths, headers, named));
      }
    }
    results[endpoint.name] = series;
  }
  return report(results, costs, unkeptNs);
}

log(
  `Emporium request log benchmark: ${fmt(size)} products, ${rounds} rounds of ${settings.duration} s runs ` +
    `(+${settings.warmup} s warm-up) a setting and endpoint, ${settings.connections} connections; ` +
    `${os.cpus().length} cores, node ${process.version}, load average ${fmt(loadAverage(), 2)}; service at ${revision()}`,
);
process.exitCode = (await run.run(body)) ? 0 : 1;
