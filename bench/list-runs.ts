/**
 * What the benchmarks of list pages at several data sizes share (products.bench.ts,
 * orders.bench.ts): the undo stack of a run, a service on a new database for each size, the
 * static-bytes baseline, autocannon runs with the CPU use of every process meanwhile, waiting for
 * a quiet machine, and the revision the figures belong to.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbedded } from '../packages/server/src/db/embedded.ts';
import {
  closeConnections,
  cpuMeter,
  fmt,
  freePort,
  get,
  log,
  rssSampler,
  runLoadgen,
  sleep,
  startNode,
  startService,
  stopChild,
  stopService,
  waitReady,
  type Child,
  type CpuShare,
} from './harness.ts';
import type { LoadgenInput } from './loadgen.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASELINE = path.join(ROOT, 'bench/baseline-server.ts');

/* ---------- undoing: everything started is undone in reverse order ---------- */

export interface Undo {
  add(step: () => Promise<void>): void;
}

/**
 * The undo stack of a benchmark run: undone at the end of each size (`undo`), at the end of the
 * run, on Ctrl-C or SIGTERM, and when the run takes longer than `limitMs`. `run` runs the
 * benchmark's body: a failure prints its stack and the last lines of `logs` (the log files of
 * the size being run), then everything is undone; it resolves with the body's verdict.
 */
export function sizedRun(limitMs: number) {
  const steps: (() => Promise<void>)[] = [];
  let cleaning: Promise<void> | undefined;
  let interrupted = false;
  let logs: string[] = [];
  const cleanup = (): Promise<void> => {
    cleaning ??= (async () => {
      for (let fn = steps.pop(); fn; fn = steps.pop()) {
        try {
          await fn();
        } catch (error) {
          process.stderr.write(`cleanup: ${(error as Error).message}\n`);
        }
      }
    })();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      process.stderr.write(`\n${signal}: stopping what the benchmark started\n`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  const watchdog = setTimeout(() => {
    process.stderr.write(
      `\nthe benchmark ran past its time limit (${Math.round(limitMs / 1000)} s); stopping\n`,
    );
    void cleanup().finally(() => process.exit(1));
  }, limitMs);
  return {
    add: (step: () => Promise<void>) => void steps.push(step),
    /** Undoes everything so far (the service of a size, its database and folder). */
    async undo() {
      await cleanup();
      cleaning = undefined;
    },
    /** The log files to show if the size being run fails. */
    set logs(files: string[]) {
      logs = files;
    },
    async run(body: () => Promise<boolean>): Promise<boolean> {
      let ok = false;
      try {
        ok = await body();
      } catch (error) {
        if (!interrupted) {
          process.stderr.write(`\nbenchmark failed: ${(error as Error).stack ?? error}\n`);
          for (const file of logs) {
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
      return ok;
    },
  };
}

/* ---------- the service of one size ---------- */

function databaseUrlOn(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface SizeService {
  tmp: string;
  dataDir: string;
  port: number;
  server: Child;
  /** The database the service uses, for the loader. */
  dbUrl: string;
  rss: ReturnType<typeof rssSampler>;
}

/**
 * A temporary folder and the service (`emporium serve`) on a new database: the embedded one in
 * the folder, or a new database on the server of `externalDb` (dropped when undone). Its RSS is
 * sampled from its start. `logs` gets the log files to show if the size fails.
 */
export async function startSizeService(
  undo: Undo,
  options: {
    externalDb: string | undefined;
    logLevel: string;
    cpuProfDir: string | undefined;
    env?: Record<string, string>;
    logs: (files: string[]) => void;
  },
): Promise<SizeService> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-'));
  fs.chmodSync(tmp, 0o755); // the embedded PostgreSQL runs as the user "postgres" (as root)
  undo.add(async () => fs.rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');
  const { externalDb } = options;

  let serviceDbUrl: string | undefined;
  if (externalDb) {
    const name = `emporium_bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: externalDb });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    undo.add(async () => {
      const client = new pg.Client({ connectionString: externalDb });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    });
    serviceDbUrl = databaseUrlOn(externalDb, name);
  }

  const port = await freePort();
  options.logs([path.join(tmp, 'emporium.log'), path.join(tmp, 'data', 'postgres', 'server.log')]);
  const server = startService({
    port,
    dataDir,
    logFile: path.join(tmp, 'emporium.log'),
    nodeOptions: options.cpuProfDir
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.cpuProfDir)}`]
      : [],
    env: { DATABASE_URL: serviceDbUrl ?? '', LOG_LEVEL: options.logLevel, ...options.env },
  });
  undo.add(() => stopService(server, dataDir));
  const rss = rssSampler(server.pid);
  undo.add(async () => rss.stop());
  await waitReady(server, port, '/readyz', 120_000);
  log(
    `  service pid ${server.pid} on 127.0.0.1:${port} (LOG_LEVEL=${options.logLevel}, ${serviceDbUrl ? 'DATABASE_URL' : 'embedded PostgreSQL'})`,
  );

  // A loader attaches to the service's embedded server (startEmbedded finds it running).
  const dbUrl = serviceDbUrl ?? (await startEmbedded(dataDir)).url;
  return { tmp, dataDir, port, server, dbUrl, rss };
}

/**
 * baseline-server.ts serving `bodies` (captured from the service) at `listPath` and, for
 * products, `<listPath>/<id>`; checked to send the very bytes of the list. Stop it with
 * stopChild once its runs are done.
 */
export async function startBaseline(
  undo: Undo,
  tmp: string,
  listPath: string,
  bodies: { list: Buffer; products?: Record<string, string> },
): Promise<{ port: number; child: Child }> {
  const bodiesFile = path.join(tmp, 'bodies.json');
  fs.writeFileSync(
    bodiesFile,
    JSON.stringify({ listPath, list: bodies.list.toString(), products: bodies.products ?? {} }),
  );
  const port = await freePort();
  const child = startNode('baseline', ['--import', 'tsx', BASELINE], {
    cwd: ROOT,
    logFile: path.join(tmp, 'baseline.log'),
    env: { ...process.env, PORT: String(port), BASELINE_BODIES: bodiesFile },
  });
  undo.add(async () => void (await stopChild(child, 10_000)));
  await waitReady(child, port, listPath, 30_000);
  const same = await get(port, listPath, {});
  if (!same.body.equals(bodies.list)) throw new Error('the baseline does not send the captured bytes');
  return { port, child };
}

/* ---------- autocannon runs ---------- */

export interface Run {
  rps: number;
  /** With writes mixed in: the 2xx reads and writes a second, apart. */
  readsPerSecond?: number;
  writesPerSecond?: number;
  /** With writes mixed in: the answers that were not 2xx, by kind and status (`write 409`). */
  refused?: Record<string, number>;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
  mbPerSec: number;
  cpu: CpuShare;
}

export interface RunSettings {
  connections: number;
  /** Seconds of the warm-up run and of the measured run. */
  warmup: number;
  duration: number;
}

/** One autocannon run in its own process (bench/loadgen.ts), with the CPU use of everyone meanwhile. */
async function cannon(
  settings: RunSettings,
  port: number,
  paths: string[],
  headers: Record<string, string>,
  seconds: number,
  named: Record<string, number>,
  writes?: LoadgenInput['writes'],
): Promise<Run> {
  const input: LoadgenInput = { port, paths, headers, seconds, connections: settings.connections, writes };
  const meter = cpuMeter(named);
  const started = performance.now();
  const result = await runLoadgen(input);
  const cpu = meter();
  // The load generator has exited, so it reports its own CPU time.
  cpu.groups.loadgen = result.cpuSeconds / ((performance.now() - started) / 1000);
  return {
    rps: result.rps,
    readsPerSecond: result.readsPerSecond,
    writesPerSecond: result.writesPerSecond,
    refused: result.refused,
    p50: result.p50,
    p99: result.p99,
    requests: result.ok,
    failures: result.failures,
    mbPerSec: result.bytesPerSecond / 1e6,
    cpu,
  };
}

const unattributed = (cpu: CpuShare) => cpu.busy - Object.values(cpu.groups).reduce((a, b) => a + b, 0);

/** Who used the CPU during a run, and how idle the machine was: a disturbed run shows as such. */
export function cpuLine(cpu: CpuShare): string {
  return Object.entries(cpu.groups)
    .filter(([, cores]) => cores >= 0.01)
    .map(([group, cores]) => `${group} ${fmt(cores * 100)}%`)
    .concat(
      `machine busy ${fmt(cpu.busy * 100)}%`,
      // Processes that started and ended within the run are not seen by name.
      unattributed(cpu) >= 0.05 ? [`unattributed ${fmt(unattributed(cpu) * 100)}%`] : [],
      `idle ${fmt(cpu.idle * 100)}%`,
      cpu.steal >= 0.01 ? [`steal ${fmt(cpu.steal * 100)}%`] : [],
    )
    .join(', ');
}

/** Warm-up, then the measured run, logged with the CPU use of each process meanwhile. */
export async function measure(
  settings: RunSettings,
  label: string,
  port: number,
  paths: string[],
  headers: Record<string, string>,
  named: Record<string, number>,
  /** Writes mixed in with the reads (bench/loadgen.ts). */
  writes?: LoadgenInput['writes'],
): Promise<Run> {
  await cannon(settings, port, paths, headers, settings.warmup, named, writes);
  const run = await cannon(settings, port, paths, headers, settings.duration, named, writes);
  const mix = writes
    ? ` (reads ${fmt(run.readsPerSecond ?? 0)}, writes ${fmt(run.writesPerSecond ?? 0)})`
    : '';
  log(
    `  ${label.padEnd(22)} ${fmt(run.rps).padStart(7)} req/s${mix}  p50 ${run.p50} ms  p99 ${run.p99} ms` +
      `  ${fmt(run.mbPerSec, 1)} MB/s  failures ${run.failures}  cpu: ${cpuLine(run.cpu)}`,
  );
  const refused = Object.entries(run.refused ?? {});
  if (refused.length) log(`    not 2xx: ${refused.map(([what, n]) => `${n} ${what}`).join(', ')}`);
  // A write may be refused for another write of the same product at that moment; a read never.
  const answered = refused.reduce((sum, [, n]) => sum + n, 0);
  const failed = writes
    ? refused.filter(([what]) => what.startsWith('read')).length + (run.failures - answered) // errors, timeouts
    : run.failures;
  if (failed > 0) throw new Error(`${label}: ${run.failures} failed requests`);
  return run;
}

/**
 * Samples the machine for 2 s until it is quiet (under 0.3 cores busy), for at most 90 s, and
 * says what it saw: runs measured on a busy machine are reported as such, not silently.
 */
export async function waitQuiet(what: string, named: Record<string, number>): Promise<CpuShare> {
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

/* ---------- report ---------- */

/** 100000 as "100k", 1000000 as "1M". */
export const sizeLabel = (n: number) => (n >= 1e6 ? `${fmt(n / 1e6, n % 1e6 ? 1 : 0)}M` : `${fmt(n / 1e3)}k`);

/** Prints a PASS, FAIL or SKIP (undefined) line per target; true if none failed. */
export function verdicts(checks: [string, boolean | undefined, string][]): boolean {
  log('\n## Targets\n');
  for (const [name, ok, value] of checks)
    log(`${ok === undefined ? 'SKIP' : ok ? 'PASS' : 'FAIL'}  ${name}: ${value}`);
  return checks.every(([, ok]) => ok !== false);
}

/** The service's revision, so figures can be tied to the code they measured. */
export function revision(): string {
  try {
    const git = (...a: string[]) =>
      execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', timeout: 5000 }).trim();
    const dirty = git('status', '--porcelain', '--', 'packages/server') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in packages/server' : ''}`;
  } catch {
    return 'unknown revision';
  }
}

/** A positive whole number from a command-line option. */
export function positive(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name}: a positive whole number, got "${raw}"`);
  return value;
}

/** A comma-separated list of sizes (`100000,1_000_000`). */
export const parseSizes = (raw: string | undefined) =>
  (raw ?? '').split(',').map((s) => positive('sizes', s.replace(/_/g, '').trim()));
