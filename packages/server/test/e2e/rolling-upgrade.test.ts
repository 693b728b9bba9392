import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { freshDatabase } from '../helpers/database.ts';
import { request, runCli, startServer, type Server } from '../helpers/process.ts';

/**
 * A rolling upgrade: the new release migrates the database while instances of the previous one
 * still run, and one of those may restart before it is replaced. It must start on the newer
 * schema, not stop at migrations it does not know (docs/production.md, "Upgrades without
 * downtime").
 */
let env: Record<string, string>;
let dataDir: string;
let server: Server | undefined;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-upgrade-'));
  env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabase(), DEMO_SITE: 'false' };
});

after(async () => {
  if (server && server.child.exitCode === null) await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

test('an instance of the previous release starts on a database a newer release migrated, and says so', async () => {
  await sql(`INSERT INTO schema_migrations (name, timestamp) VALUES ('999-a-later-release', now())`);
  server = await startServer(env);
  assert.match(server.stdout(), /migrated past this release \(999-a-later-release\); running on it/);
  assert.equal((await request(server.baseUrl, 'GET', '/readyz', {})).status, 200);
  assert.equal(await server.stop(), 0);
  const migrate = await runCli(['migrate'], env);
  assert.equal(migrate.code, 0, migrate.stderr);
  assert.deepEqual(JSON.parse(migrate.stdout), { migrated: true });
});

test("a database missing one of this release's migrations beside a newer one is refused, naming both", async () => {
  await sql(
    `DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations WHERE name < '999')`,
  );
  const migrate = await runCli(['migrate'], env);
  assert.equal(migrate.code, 1);
  assert.match(
    migrate.stderr,
    /migrated by a release with 999-a-later-release but without \d{3}-[a-z-]+: this release cannot run on it/,
  );
});
