import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from './db/database.ts';
import { startEmbedded } from './db/embedded.ts';
import { running } from './db/embedded-owner.ts';
import { migrateToLatest } from './db/migrate.ts';
import { Jobs } from './jobs/queue.ts';
import { CACHED_TEMPLATE, copyOfCachedCluster, saveClusterToCache } from './harness-cluster.ts';

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
  if (!(await copyOfCachedCluster(folder))) {
    // The first process of the machine (or of new migrations) makes the cluster and keeps a copy.
    const first = await startEmbedded(folder, { throwaway: true });
    try {
      await onServer(first.url, `CREATE DATABASE ${CACHED_TEMPLATE}`);
      await migrate(databaseUrl(first.url, CACHED_TEMPLATE));
    } finally {
      await first.stop();
    }
    await saveClusterToCache(folder);
  }
  const server = await startEmbedded(folder, { throwaway: true });
  // The server is a daemon of its own: it goes with this process, whichever way the process ends
  // by itself. A process killed outright leaves it to the next process (stopAbandonedServers).
  process.once('exit', () => {
    server.stopNow();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  return { url: server.url, template: CACHED_TEMPLATE, folder };
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
  await migrate(databaseUrl(serverUrl, template));
  return template;
}

/** The tables and functions, and the job queue's schema and queues, which every clone would otherwise make at its start. */
async function migrate(url: string): Promise<void> {
  const handle = openDatabase(url, { max: 1 });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
  const jobs = new Jobs(url);
  await jobs.start();
  await jobs.stop();
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
    // Only that postmaster: a process id the system has given to another program is left alone.
    if (Number.isInteger(pid) && pid > 0 && running(pid) && readOr(`/proc/${pid}/cmdline`).includes(pgdata)) {
      process.kill(pid, 'SIGQUIT');
    }
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

/** Tables that hold the schema's and the instance's own state, not a site's data: reset keeps them. */
const KEPT_TABLES = new Set([
  'schema_migrations',
  'schema_migrations_lock',
  'emporium_functions',
  'server_secrets',
]);
/** Where snapshot() copies the data tables, in the instance's own database. */
const SNAPSHOT_SCHEMA = 'harness_snapshot';

/** The data tables of each database, in order: the schema does not change under a running instance. */
const tableOrders = new WeakMap<pg.Pool, Promise<string[]>>();

/** The data tables, each after the tables its foreign keys point at. */
function dataTables(pool: pg.Pool): Promise<string[]> {
  let tables = tableOrders.get(pool);
  if (!tables) {
    tables = readDataTables(pool);
    tableOrders.set(pool, tables);
  }
  return tables;
}

async function readDataTables(pool: pg.Pool): Promise<string[]> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
  );
  const { rows: keys } = await pool.query<{ child: string; parent: string }>(
    `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent
       FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`,
  );
  const names = tables.map((t) => t.name).filter((name) => !KEPT_TABLES.has(name));
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    for (const key of keys) if (key.child === name && key.parent !== name) visit(key.parent, path);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered.filter((name) => !KEPT_TABLES.has(name));
}

/**
 * Statements run as one transaction in one round trip (the simple query protocol takes several);
 * a failure rolls it back before the connection goes back to the pool.
 */
async function inOneTrip(pool: pg.Pool, statements: string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(['BEGIN', ...statements, 'COMMIT'].join(';\n'));
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Copies every data table into the snapshot schema, replacing an earlier snapshot. */
export async function snapshotData(pool: pg.Pool): Promise<void> {
  const tables = await dataTables(pool);
  await inOneTrip(pool, [
    `DROP SCHEMA IF EXISTS ${SNAPSHOT_SCHEMA} CASCADE`,
    `CREATE SCHEMA ${SNAPSHOT_SCHEMA}`,
    ...tables.map((table) => `CREATE TABLE ${SNAPSHOT_SCHEMA}.${table} AS TABLE public.${table}`),
  ]);
}

/**
 * Puts the snapshot back in one transaction (or, `empty`, no data at all, as a migrated database
 * has none): every data table emptied, then filled from the snapshot, parents before children.
 * Row triggers do not fire for TRUNCATE, so no change notice goes out: the caller makes the
 * caches forget.
 */
export async function restoreData(pool: pg.Pool, { empty = false } = {}): Promise<void> {
  const tables = await dataTables(pool);
  await inOneTrip(pool, [
    `TRUNCATE ${tables.map((t) => `public.${t}`).join(', ')}`,
    ...(empty ? [] : tables).map(
      // OVERRIDING SYSTEM VALUE: rows keep their ids, in identity columns too (the request log's).
      (table) =>
        `INSERT INTO public.${table} OVERRIDING SYSTEM VALUE SELECT * FROM ${SNAPSHOT_SCHEMA}.${table}`,
    ),
  ]);
}
