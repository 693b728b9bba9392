import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The URL of another database on the same server. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh, migrated database for one test file, cloned from the run's template (see test/run.ts). */
export async function freshDatabase(): Promise<string> {
  const server = process.env.EMPORIUM_TEST_SERVER;
  const template = process.env.EMPORIUM_TEST_TEMPLATE;
  if (!server || !template)
    throw new Error('run the tests with `npm test` (test/run.ts sets up the database server)');
  const name = `${template}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(server, name);
}
