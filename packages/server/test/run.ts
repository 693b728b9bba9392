/**
 * Runs the test suite against one PostgreSQL server: the embedded one in a temporary folder, or
 * the server of DATABASE_URL (e.g. the machine's PostgreSQL 15). A template database is migrated
 * once; each test file clones its own database from it (see helpers/database.ts).
 *
 *   node --import tsx test/run.ts            every test
 *   node --import tsx test/run.ts e2e        only the tests that start the real process
 *   node --import tsx test/run.ts http.test.ts   one file
 *   node --import tsx test/run.ts /path/to/dir   another package's tests on the same database setup
 *                                                (the SDK's end-to-end tests: packages/sdk/test)
 *   node --import tsx test/run.ts --test-reporter=...   options for node's test runner (see
 *                                                helpers/file-timings.mjs for the time each file takes)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { startEmbedded, type EmbeddedServer } from '../src/db/embedded.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { databaseUrl } from './helpers/database.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
// Options of node's test runner (`--test-reporter=...`) go to it; the one other argument picks the tests.
const args = process.argv.slice(2);
const runnerOptions = args.filter((a) => a.startsWith('--test-'));
const only = args.find((a) => !a.startsWith('--test-'));

function testFiles(dir: string): string[] {
  if (fs.statSync(dir).isFile()) return [dir];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

async function main(): Promise<number> {
  let embedded: EmbeddedServer | undefined;
  let tmp: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-test-'));
    embedded = await startEmbedded(tmp, { throwaway: true });
    serverUrl = embedded.url;
  }
  const template = `emporium_tpl_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${template}`);
    const handle = openDatabase(databaseUrl(serverUrl, template), { max: 1 });
    await migrateToLatest(handle.db);
    await handle.close();

    // A name under test/, else a path from the working directory (another package's tests).
    const target = !only
      ? here
      : fs.existsSync(path.join(here, only))
        ? path.join(here, only)
        : path.resolve(only);
    const files = testFiles(target);
    // Three files at once on two cores: the suite waits on processes, PostgreSQL and Chromium as
    // much as it computes (1.3 cores busy on average at two at once), and ran 9% faster than at two.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=3', ...runnerOptions, ...files],
      {
        stdio: 'inherit',
        env: { ...process.env, EMPORIUM_TEST_SERVER: serverUrl, EMPORIUM_TEST_TEMPLATE: template },
      },
    );
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    // Drop what this run made, so a shared server is left as it was found.
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [template, `${template}_%`],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
    await embedded?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main();
