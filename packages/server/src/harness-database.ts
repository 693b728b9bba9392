import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from './db/database.ts';
import { startEmbedded } from './db/embedded.ts';
import { running } from './db/embedded-owner.ts';
import { migrateToLatest } from './db/migrate.ts';

/*
 * The databases of the test harness (harness.ts): one PostgreSQL server a process, found or
 * started on the first instance, with one migrated template database; each instance clones the
 * template (CREATE DATABASE ... TEMPLATE takes a tenth of a second where migrating takes one).
 * Names and folders carry the process id, so a later process clears what a killed one left.
 */

/**
 * Databases of the harness begin with this, then this machine's mark and the process id: a server
 * shared by several machines holds databases whose process ids mean nothing here.
 */
const PREFIX = `emporium_harness_${createHash('sha256').update(os.hostname()).digest('hex').slice(0, 6)}_`;
/** Folders of the harness's embedded servers begin with this, then the process id. */
const FOLDER_PREFIX = 'emporium-harness-';

export interface DatabaseServer {
  /** The server's URL, on its maintenance database. */
  url: string;
  /** A migrated database to clone. */
  template: string;
  /** Where this process keeps files of its own: image folders. */
  folder: string;
}

/** The URL of another database on the same server. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** One SQL statement on the server's maintenance database. */
export async function onServer(serverUrl: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database name of this process. */
export function databaseName(): string {
  return `${PREFIX}${process.pid}_${randomBytes(5).toString('hex')}`;
}

const servers = new Map<string, Promise<DatabaseServer>>();

/** This process's server: `serverUrl`'s, or an embedded one in a temporary folder. */
export function databaseServer(serverUrl: string | undefined): Promise<DatabaseServer> {
  const key = serverUrl ?? 'embedded';
  let server = servers.get(key);
  if (!server) {
    server = (serverUrl ? external(serverUrl) : embedded()).catch((error: unknown) => {
      servers.delete(key); // a later start tries again
      throw error;
    });
    servers.set(key, server);
  }
  return server;
}

async function embedded(): Promise<DatabaseServer> {
  stopAbandonedServers();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  const server = await startEmbedded(folder, { throwaway: true });
  // The server is a daemon of its own: it goes with this process, whichever way the process ends
  // by itself. A process killed outright leaves it to the next process (stopAbandonedServers).
  process.once('exit', () => {
    server.stopNow();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  return { url: server.url, template: await migratedTemplate(server.url), folder };
}

async function external(serverUrl: string): Promise<DatabaseServer> {
  await dropAbandonedDatabases(serverUrl);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  process.once('exit', () => fs.rmSync(folder, { recursive: true, force: true }));
  return { url: serverUrl, template: await migratedTemplate(serverUrl), folder };
}

async function migratedTemplate(serverUrl: string): Promise<string> {
  const template = databaseName();
  await onServer(serverUrl, `CREATE DATABASE ${template}`);
  const handle = openDatabase(databaseUrl(serverUrl, template), { max: 1 });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
  return template;
}

/** The process id in a harness name, when that process is gone. */
function abandoned(name: string, prefix: string): boolean {
  const pid = Number(/^(\d+)/.exec(name.slice(prefix.length))?.[1]);
  return Number.isInteger(pid) && pid !== process.pid && !running(pid);
}

/** Embedded servers and folders of harness processes that were killed before they could clean up. */
function stopAbandonedServers(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(FOLDER_PREFIX) || !abandoned(name, FOLDER_PREFIX)) continue;
    const folder = path.join(os.tmpdir(), name);
    const pgdata = path.join(folder, 'postgres');
    // The postmaster's process id is the first line of its lock file; SIGQUIT is its immediate stop.
    const pid = Number(readOr(path.join(pgdata, 'postmaster.pid')).split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0 && running(pid)) process.kill(pid, 'SIGQUIT');
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Databases on a shared server left by harness processes that were killed. */
async function dropAbandonedDatabases(serverUrl: string): Promise<void> {
  const { rows } = await onServer(
    serverUrl,
    `SELECT datname FROM pg_database WHERE datname LIKE '${PREFIX}%'`,
  );
  for (const { datname } of rows as { datname: string }[]) {
    if (abandoned(datname, PREFIX))
      await onServer(serverUrl, `DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  }
}
