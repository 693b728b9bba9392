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
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { fmt, log, loadAverage, startService, stopService, waitReady, freePort } from './harness.ts';
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

function report(results: Record<string, Series>): boolean {
  const lines = [
    '| endpoint | log on req/s | log off req/s | cost | cost of each round, lowest / median / highest |',
    '|---|---:|---:|---:|---:|',
  ];
  const checks: [string, boolean, string][] = [];
  for (const [name, { on, off }] of Object.entries(results)) {
    const cost = 1 - mean(on) / mean(off);
    const each = on.map((r, i) => 1 - r.rps / off[i]!.rps).sort((a, b) => a - b);
    const pct = (x: number) => `${fmt(100 * x, 1)}%`;
    lines.push(
      `| ${name} | ${fmt(mean(on))} | ${fmt(mean(off))} | ${pct(cost)} | ` +
        `${pct(each[0]!)} / ${pct(each[Math.floor(each.length / 2)]!)} / ${pct(each.at(-1)!)} |`,
    );
    checks.push([
      `the request log costs ${name} at most ${TARGET_COST * 100}%`,
      cost <= TARGET_COST,
      pct(cost),
    ]);
  }
  log(
    `\n## Results (${rounds} rounds of ${settings.duration} s runs, ${settings.connections} connections)\n`,
  );
  log(lines.join('\n'));
  return verdicts(checks);
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
  await client.end();
  const headers = { authorization: `Bearer ${site.apiKey}`, 'user-agent': 'emporium-bench/1.0' };
  const named = { 'log on': on.pid, 'log off': off.server.pid };
  await waitQuiet('the runs', named);

  const results: Record<string, Series> = {};
  for (const endpoint of ENDPOINTS) {
    const paths = endpoint.name === 'get by id' ? rows.map((r) => endpoint.path + r.id) : [endpoint.path];
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
  return report(results);
}

log(
  `Emporium request log benchmark: ${fmt(size)} products, ${rounds} rounds of ${settings.duration} s runs ` +
    `(+${settings.warmup} s warm-up) a setting and endpoint, ${settings.connections} connections; ` +
    `${os.cpus().length} cores, node ${process.version}, load average ${fmt(loadAverage(), 2)}; service at ${revision()}`,
);
process.exitCode = (await run.run(body)) ? 0 : 1;
