import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/shared/net.ts';
import { freshDatabase } from '../helpers/database.ts';

/**
 * `npm start` from the repository root, as a process manager runs it: in a session of its own, and
 * stopped by a signal to npm's pid alone. npm passes SIGTERM and SIGINT on to its child only, so
 * the service must be that child, not a grandchild behind a shell that dies and orphans it.
 * Ctrl-C signals the whole process group, so the service then gets SIGINT twice (from the
 * terminal and from npm) and must still stop cleanly.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const STOP_LIMIT_MS = 20_000;

let dataDir: string;
let databaseUrl: string;
/** Every process a test started (npm and what it runs), killed by pid in `after` if still alive. */
const started = new Set<number>();

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-npm-start-'));
  fs.chmodSync(dataDir, 0o755);
  databaseUrl = await freshDatabase();
});

after(() => {
  for (const pid of started) if (alive(pid)) kill(pid, 'SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Running, as opposed to gone or a zombie (an orphan's exit may never be reaped here). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** The pids below `pid`, read while they run, so that `after` can stop even an orphaned one. */
function descendants(pid: number): number[] {
  let children: string;
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
  } catch {
    return [];
  }
  return children
    .split(' ')
    .filter(Boolean)
    .map(Number)
    .flatMap((child) => [child, ...descendants(child)]);
}

/** Asks until `done` holds, at most `limitMs`: the state of another process cannot be awaited. */
async function until<T>(ask: () => Promise<T>, done: (value: T) => boolean, limitMs: number): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await ask();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface NpmStart {
  npm: ChildProcess;
  port: number;
  /** The pid the service reports in its log: the node process that serves. */
  servicePid: number;
  output(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function npmStart(): Promise<NpmStart> {
  const port = await freePort();
  // A process manager's environment, not that of the `npm test` running this file.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true, // a session and process group of its own, as a process manager gives it
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      DEMO_SITE: 'false',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
    },
  });
  started.add(npm.pid!);
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let exited = false;
  void exit.then(() => (exited = true));

  // Up once it answers and its "Server listening" line (which names its pid) has been read: the
  // log line may reach the pipe after the first answer.
  const up = await until(
    async () => (await healthy(port)) && /"pid":\d+[^\n]*Server listening/.test(out),
    (ok) => ok || exited,
    60_000,
  );
  for (const pid of descendants(npm.pid!)) started.add(pid);
  assert.ok(up, `npm start did not answer on port ${port}:\n${out}`);
  const servicePid = Number(/"pid":(\d+)[^\n]*Server listening/.exec(out)?.[1]);
  assert.ok(servicePid > 0, out);
  started.add(servicePid);
  return { npm, port, servicePid, output: () => out, exit };
}

/** Waits for the service to stop after a signal, and tells what a process manager would see. */
async function stopped(run: NpmStart) {
  const state = await until(
    async () => ({ listening: await portOpen(run.port), running: alive(run.servicePid) }),
    (s) => !s.listening && !s.running,
    STOP_LIMIT_MS,
  );
  assert.equal(state.listening, false, `the port still answers:\n${run.output()}`);
  assert.equal(state.running, false, `the service process ${run.servicePid} still runs:\n${run.output()}`);
  const limit = new Promise<'npm still runs'>((resolve) =>
    setTimeout(() => resolve('npm still runs'), STOP_LIMIT_MS).unref(),
  );
  return Promise.race([run.exit, limit]);
}

test('npm start stops, and exits 0, when a process manager sends SIGTERM to npm alone', async () => {
  const run = await npmStart();
  kill(run.npm.pid!, 'SIGTERM');
  assert.deepEqual(await stopped(run), { code: 0, signal: null }, run.output());
  assert.match(run.output(), /"signal":"SIGTERM"[^\n]*"msg":"shutting down"/);
});

test('npm start stops, and exits 0, when SIGINT is sent to npm alone', async () => {
  const run = await npmStart();
  kill(run.npm.pid!, 'SIGINT');
  assert.deepEqual(await stopped(run), { code: 0, signal: null }, run.output());
  assert.match(run.output(), /"signal":"SIGINT"[^\n]*"msg":"shutting down"/);
});

test('Ctrl-C, SIGINT to the whole process group, stops npm start cleanly with exit code 0', async () => {
  // The terminal's SIGINT and the one npm passes on reach the service a moment apart; the second
  // must not cut its clean stop short.
  for (let i = 0; i < 3; i++) {
    const run = await npmStart();
    kill(-run.npm.pid!, 'SIGINT');
    assert.deepEqual(await stopped(run), { code: 0, signal: null }, run.output());
    assert.match(run.output(), /"signal":"SIGINT"[^\n]*"msg":"shutting down"/);
  }
});
