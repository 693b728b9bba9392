import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { sql, type QueryExecutorProvider } from 'kysely';
import pg from 'pg';
import { openDatabase, type DatabaseHandle, type Db } from '../src/db/database.ts';
import { checksum, functionDefinitions, type FunctionDefinition } from '../src/db/functions.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { databaseUrl, freshDatabase } from './helpers/database.ts';

/**
 * Each SQL function has one current definition, its file in db/functions/, applied by the
 * migrator after the migrations when its text changed (db/functions.ts).
 */
const handles: DatabaseHandle[] = [];
after(async () => {
  for (const handle of handles) await handle.close();
});

async function open(url: string): Promise<Db> {
  const handle = openDatabase(url, { max: 2 });
  handles.push(handle);
  return handle.db;
}

/** A database with nothing in it, as a first start finds it. */
async function emptyDatabase(): Promise<string> {
  const server = process.env.EMPORIUM_TEST_SERVER!;
  const name = `${process.env.EMPORIUM_TEST_TEMPLATE}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(server, name);
}

/** The schema's functions but those of extensions (pg_trgm's), by name. */
async function definitionsInForce(db: QueryExecutorProvider): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; definition: string }>`
    SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition FROM pg_proc p
    WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`.execute(db);
  return new Map(rows.map((row) => [row.name, row.definition]));
}

const appliedAt = async (db: QueryExecutorProvider) =>
  new Map(
    (
      await sql<{ name: string; checksum: string; applied_at: Date }>`
        SELECT name, checksum, applied_at FROM emporium_functions`.execute(db)
    ).rows.map((row) => [row.name, row]),
  );

/** The files with one body changed by a comment line. */
function withChangedBody(name: string): FunctionDefinition[] {
  return functionDefinitions().map((definition) =>
    definition.name === name
      ? { name, text: definition.text.replace('BEGIN\n', 'BEGIN\n      -- changed\n') }
      : definition,
  );
}

test('each file of db/functions/ is the definition in force after migrating, and every function has one', async () => {
  const db = await open(await freshDatabase());
  const files = functionDefinitions();
  const inForce = await definitionsInForce(db);
  assert.deepEqual(
    [...inForce.keys()].sort(),
    files.map((file) => file.name),
  );
  const recorded = await appliedAt(db);
  for (const file of files) {
    assert.equal(file.text.match(/CREATE OR REPLACE FUNCTION (\w+)\(/)?.[1], file.name, `${file.name}.sql`);
    assert.equal(recorded.get(file.name)?.checksum, checksum(file.text), `${file.name}.sql recorded`);
    // The definition the file makes, on this database, undone afterwards.
    const fromFile = await db
      .transaction()
      .execute(async (trx) => {
        await sql.raw(file.text).execute(trx);
        const made = await definitionsInForce(trx);
        throw Object.assign(new Error('undo'), { made });
      })
      .catch((error: { made?: Map<string, string> }) => error.made?.get(file.name));
    assert.equal(inForce.get(file.name), fromFile, `${file.name}.sql is not the definition in force`);
  }
});

test('a migration from 024 on changes tables, not the bodies of functions', () => {
  const folder = new URL('../src/db/migrations/', import.meta.url);
  for (const file of fs.readdirSync(folder).filter((name) => name > '024')) {
    const text = fs.readFileSync(new URL(file, folder), 'utf8');
    assert.doesNotMatch(text, /CREATE\s+(OR\s+REPLACE\s+)?FUNCTION/i, `${file}: put it in db/functions/`);
  }
});

test('a changed file is applied on the next migrate, and only that one; the file as it was, on the one after', async () => {
  const db = await open(await freshDatabase());
  const before = await appliedAt(db);
  await migrateToLatest(db, withChangedBody('oauth_confirm_pair'));
  assert.match((await definitionsInForce(db)).get('oauth_confirm_pair')!, /-- changed/);
  const changed = await appliedAt(db);
  for (const [name, row] of before) {
    if (name === 'oauth_confirm_pair') {
      assert.notEqual(changed.get(name)!.checksum, row.checksum);
      assert.ok(changed.get(name)!.applied_at > row.applied_at);
    } else assert.deepEqual(changed.get(name), row, `${name} applied again`);
  }
  await migrateToLatest(db);
  assert.doesNotMatch((await definitionsInForce(db)).get('oauth_confirm_pair')!, /-- changed/);
  const back = await appliedAt(db);
  for (const [name, row] of before) assert.equal(back.get(name)!.checksum, row.checksum, name);
  assert.ok(back.get('oauth_confirm_pair')!.applied_at > changed.get('oauth_confirm_pair')!.applied_at);
});

test('a release that finds the database migrated past it leaves the functions as the newer one made them', async () => {
  const db = await open(await freshDatabase());
  await sql`INSERT INTO schema_migrations (name, timestamp) VALUES ('999-a-later-release', now())`.execute(
    db,
  );
  await migrateToLatest(db, withChangedBody('oauth_refresh'));
  assert.doesNotMatch((await definitionsInForce(db)).get('oauth_refresh')!, /-- changed/);
});

test('a file that changes its argument types is refused, and nothing of its migrate is kept', async () => {
  const db = await open(await freshDatabase());
  const before = await definitionsInForce(db);
  const files = withChangedBody('oauth_confirm_pair').map((definition) =>
    definition.name === 'oauth_confirm_pair'
      ? { ...definition, text: definition.text.replace('moment timestamptz', 'moment timestamp') }
      : definition,
  );
  await assert.rejects(migrateToLatest(db, files), /oauth_confirm_pair\.sql leaves 2 functions of that name/);
  assert.deepEqual(await definitionsInForce(db), before);
});

test('instances migrating a new database at once all start, and each definition is applied once', async () => {
  const url = await emptyDatabase();
  const dbs = await Promise.all([open(url), open(url), open(url)]);
  await Promise.all(dbs.map((db) => migrateToLatest(db)));
  const recorded = await appliedAt(dbs[0]!);
  assert.deepEqual(
    [...recorded.keys()].sort(),
    functionDefinitions().map((file) => file.name),
  );
  // Then all at once with one body changed: applied by the first, found applied by the others.
  await Promise.all(dbs.map((db) => migrateToLatest(db, withChangedBody('oauth_authenticate'))));
  assert.match((await definitionsInForce(dbs[1]!)).get('oauth_authenticate')!, /-- changed/);
});
