/**
 * Process and measurement helpers of the benchmark: child processes stopped by pid with a time
 * bound, free ports, plain HTTP requests, resident memory and CPU time read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import type { LoadgenInput, LoadgenResult } from './loadgen.ts';
import { systemClock } from '../packages/server/src/shared/clock.ts';
import { openDatabase } from '../packages/server/src/db/database.ts';
import { startEmbedded } from '../packages/server/src/db/embedded.ts';
import { randomIds } from '../packages/server/src/shared/ids.ts';
import { createApiKey } from '../packages/server/src/sites/api-keys.service.ts';
import { createOwner } from '../packages/server/src/sites/owners.service.ts';
import { createWebsite } from '../packages/server/src/sites/websites.service.ts';

export interface Child {
  name: string;
  pid: number;
  process: ChildProcess;
  exited: Promise<number | null>;
  /** The output so far (stdout and stderr go to this file). */
  logFile: string;
}

/** Starts a Node process with its output sent to a file; it never inherits the terminal. */
export function startNode(
  name: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; logFile: string; command?: string },
): Child {
  const { env, cwd, logFile, command = process.execPath } = options;
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`${name} did not start`);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, pid: child.pid, process: child, exited, logFile };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM to the pid, then SIGKILL if it has not exited within `graceMs`. True if it stopped cleanly. */
export async function stopChild(child: Child, graceMs: number): Promise<boolean> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return true;
  process.kill(child.pid, 'SIGTERM');
  // Cleared once the child exits: a pending grace timer would keep the benchmark alive after its end.
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>(
    (resolve) => (timer = setTimeout(() => resolve('timeout'), graceMs)),
  );
  const outcome = await Promise.race([child.exited, graceOver]);
  clearTimeout(timer);
  if (outcome !== 'timeout') return true;
  process.kill(child.pid, 'SIGKILL');
  await child.exited;
  return false;
}

/** Waits for a pid to disappear, up to `ms`. */
export async function waitGone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await sleep(100);
  }
  return true;
}

import { freePort } from '../packages/server/src/shared/net.ts';

export { freePort };

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export interface Response {
  status: number;
  body: Buffer;
  ms: number;
}

/** One GET to 127.0.0.1, with a time bound; `ms` is the time to the last byte of the body. */
export function get(port: number, path: string, headers: Record<string, string>, timeoutMs = 10_000) {
  return send(port, 'GET', path, headers, undefined, timeoutMs);
}

/**
 * One request to 127.0.0.1 with a time bound, on a kept-alive connection of `via` (by default
 * the one connection `get` uses).
 */
export function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  timeoutMs = 10_000,
  via: http.Agent = agent,
) {
  return new Promise<Response>((resolve, reject) => {
    const start = performance.now();
    const request = http.request(
      { host: '127.0.0.1', port, method, path, headers, agent: via, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks),
            ms: performance.now() - start,
          }),
        );
        res.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)),
    );
    request.on('error', reject);
    request.end(body);
  });
}

export function closeConnections(): void {
  agent.destroy();
}

/** Polls a URL path until it answers 200, the process exits, or the time is up. */
export async function waitReady(child: Child, port: number, path: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (child.process.exitCode !== null) {
      throw new Error(`${child.name} exited with ${child.process.exitCode}; see ${child.logFile}`);
    }
    try {
      if ((await get(port, path, {}, 1000)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${child.name} not ready after ${ms} ms; see ${child.logFile}`);
    await sleep(200);
  }
}

/** Resident set size in bytes (VmRSS of /proc/<pid>/status), or undefined once the process is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples a pid's RSS every `everyMs`; `max` is the highest seen. */
export function rssSampler(pid: number, everyMs = 100) {
  const state = { max: 0, samples: 0 };
  const sample = () => {
    const rss = rssBytes(pid);
    if (rss !== undefined) {
      state.max = Math.max(state.max, rss);
      state.samples++;
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    get max() {
      return state.max;
    },
    get samples() {
      return state.samples;
    },
    stop() {
      clearInterval(timer);
      sample();
    },
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds used so far by every process, by pid, with its command name. */
function processTimes(): Map<number, { comm: string; seconds: number }> {
  const times = new Map<number, { comm: string; seconds: number }>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
      times.set(Number(entry), { comm, seconds });
    } catch {
      // the process ended while we looked
    }
  }
  return times;
}

export interface CpuShare {
  /** Cores busy on average during the interval, by group; `cores` is the machine's count. */
  groups: Record<string, number>;
  cores: number;
  /** Cores idle (including waiting for I/O), and taken by the hypervisor (steal), on average. */
  idle: number;
  steal: number;
  /** Cores busy machine-wide (user, system, interrupts). */
  busy: number;
}

/** Machine-wide idle (with iowait) and steal seconds so far, from /proc/stat. */
function machineTimes(): { idle: number; steal: number; busy: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return {
    idle: (idle + iowait) / TICKS_PER_SECOND,
    steal: steal / TICKS_PER_SECOND,
    busy: (user + nice + system + irq + softirq) / TICKS_PER_SECOND,
  };
}

/**
 * CPU used between the call and the returned stop(), in cores busy on average, grouped: the
 * named pids (read at stop, so pids started later can be added), PostgreSQL (processes named
 * postgres), this process (bench), and everything else (other).
 */
export function cpuMeter(named: Record<string, number>) {
  const before = processTimes();
  const machineBefore = machineTimes();
  const started = performance.now();
  return (): CpuShare => {
    const after = processTimes();
    const machineAfter = machineTimes();
    const wall = (performance.now() - started) / 1000;
    const groups: Record<string, number> = {};
    for (const name of Object.keys(named)) groups[name] = 0;
    const byPid = new Map(Object.entries(named).map(([name, pid]) => [pid, name]));
    for (const [pid, now] of after) {
      const used = now.seconds - (before.get(pid)?.seconds ?? 0);
      if (used <= 0) continue;
      const group =
        byPid.get(pid) ??
        (pid === process.pid ? 'bench' : now.comm.startsWith('postgres') ? 'postgres' : 'other');
      groups[group] = (groups[group] ?? 0) + used / wall;
    }
    return {
      groups,
      cores: os.cpus().length,
      idle: (machineAfter.idle - machineBefore.idle) / wall,
      steal: (machineAfter.steal - machineBefore.steal) / wall,
      busy: (machineAfter.busy - machineBefore.busy) / wall,
    };
  };
}

export function loadAverage(): number {
  return os.loadavg()[0] ?? 0;
}

const LOADGEN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'loadgen.ts');

/** One autocannon run in a process of its own (loadgen.ts); resolves with its JSON result. */
export async function runLoadgen(input: LoadgenInput): Promise<LoadgenResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', LOADGEN, JSON.stringify(input)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: (input.seconds + 60) * 1000,
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the load generator exited with ${code}`);
  return JSON.parse(stdout) as LoadgenResult;
}

const SERVER_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../packages/server/bin/emporium.js',
);

/** The executable's own node options (its first line): the heap caps the service runs with. */
const HEAP_CAPS = ['--max-old-space-size=192', '--max-semi-space-size=16'];

/**
 * `emporium serve` from the sources, run as the executable that `npm start` runs (with its own
 * node options): on loopback, no demo site, and a rate limiter that runs on every request but
 * never refuses. `env` adds to or overrides that. `nodeOptions` (such as `--cpu-prof`, which node
 * refuses in NODE_OPTIONS) make it run through node with them and the executable's heap caps.
 */
export function startService(options: {
  port: number;
  dataDir: string;
  logFile: string;
  env: Record<string, string>;
  nodeOptions?: string[];
}): Child {
  const extra = options.nodeOptions ?? [];
  const args = extra.length ? [...HEAP_CAPS, ...extra, SERVER_BIN, 'serve'] : ['serve'];
  return startNode('emporium', args, {
    command: extra.length ? process.execPath : SERVER_BIN,
    cwd: path.resolve(path.dirname(SERVER_BIN), '../../..'),
    logFile: options.logFile,
    env: {
      ...process.env,
      PORT: String(options.port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      RATE_LIMIT_PER_MINUTE: '1000000000',
      DEMO_SITE: 'false',
      ...options.env,
    },
  });
}

/** The service's shutdown: SIGTERM, which also stops its embedded PostgreSQL; if that hangs, by force. */
export async function stopService(server: Child, dataDir: string): Promise<void> {
  const postmasterFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  const postmaster = fs.existsSync(postmasterFile)
    ? Number(fs.readFileSync(postmasterFile, 'utf8').split('\n')[0])
    : undefined;
  if (await stopChild(server, 60_000)) return;
  process.stderr.write(`the service (pid ${server.pid}) did not stop within 60 s and was killed\n`);
  if (postmaster && alive(postmaster)) {
    process.kill(postmaster, 'SIGQUIT'); // PostgreSQL's immediate shutdown
    if (!(await waitGone(postmaster, 30_000))) process.kill(postmaster, 'SIGKILL');
  }
}

export const log = (line: string) => process.stdout.write(`${line}\n`);
export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** The p-th percentile of sorted values. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/**
 * What a benchmark must undo (processes, folders, connections), undone last first: when asked,
 * on Ctrl-C or SIGTERM, and when the run takes longer than `limitMs`.
 */
export function undoOnExit(limitMs: number) {
  const steps: (() => Promise<void>)[] = [];
  const undo = async () => {
    for (let step = steps.pop(); step; step = steps.pop()) await step().catch(() => {});
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void undo().finally(() => process.exit(130)));
  }
  const watchdog = setTimeout(() => void undo().finally(() => process.exit(1)), limitMs);
  return {
    add: (step: () => Promise<void>) => void steps.push(step),
    /** Undoes everything so far; the time limit still runs. */
    undo,
    /** Undoes everything and ends the time limit. */
    async finish() {
      clearTimeout(watchdog);
      await undo();
    },
  };
}

/**
 * The service on an embedded database in a new temporary folder, started and ready; `undo`
 * gets its stop and the folder's removal. Returns its port, `DATA_DIR` and pid.
 */
export async function startFreshService(
  undo: { add(step: () => Promise<void>): void },
  name: string,
  env: Record<string, string>,
): Promise<{ port: number; dataDir: string; pid: number }> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `emporium-${name}-bench-`));
  fs.chmodSync(tmp, 0o755);
  undo.add(async () => fs.rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');
  const port = await freePort();
  const server = startService({
    port,
    dataDir,
    logFile: path.join(tmp, 'emporium.log'),
    env: { DATABASE_URL: '', ...env },
  });
  undo.add(() => stopService(server, dataDir));
  await waitReady(server, port, '/readyz', 120_000);
  return { port, dataDir, pid: server.pid };
}

/**
 * A new owner on the service's database (the embedded server the service runs, attached to by
 * its `DATA_DIR`), made with the service's own functions; `undo` closes the connection.
 */
export async function benchOwner(undo: { add(step: () => Promise<void>): void }, dataDir: string) {
  const databaseUrl = (await startEmbedded(dataDir)).url;
  const handle = openDatabase(databaseUrl, { max: 2 });
  undo.add(() => handle.close());
  const deps = { db: handle.db, clock: systemClock, ids: randomIds };
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const { ownerId } = await createOwner(deps, { email, password: randomBytes(12).toString('base64url') });
  return { deps, databaseUrl, email, ownerId };
}

/** A website of that owner and an API key for it with `scopes` (comma-separated). */
export async function benchSite(
  owner: { deps: Parameters<typeof createWebsite>[0]; email: string },
  scopes: string,
  title = 'Bench',
) {
  const { websiteId, storePageId } = await createWebsite(owner.deps, { ownerEmail: owner.email, title });
  const { apiKey } = await createApiKey(owner.deps, { websiteId, scopes });
  return { websiteId, storePageId, apiKey };
}
