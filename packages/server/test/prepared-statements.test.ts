import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { lockProduct, selectProductVariants } from '../src/catalog/products.repo.ts';
import { findKey } from '../src/db/idempotency-keys.ts';
import { freshDatabase } from './helpers/database.ts';

/**
 * A transaction's statements are sent as named prepared statements (db/prepared-statements.ts),
 * parsed and planned once per connection; a statement outside a transaction, and one that
 * projects every column, is not. One connection here, so every statement meets the last ones.
 */

let handle: DatabaseHandle;
before(async () => {
  handle = openDatabase(await freshDatabase(), { max: 1 });
});
after(() => handle.close());

/** The texts this connection holds prepared (asked in a transaction: so is the list itself). */
async function prepared(): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(
    handle.db,
  );
  return rows.map((r) => r.statement);
}

const byId = (db: DatabaseHandle['db'], id: string) =>
  db.selectFrom('websites').select(['id', 'title']).where('id', '=', id);

test('a statement in a transaction is prepared once, and used again by the next transaction', async () => {
  const text = byId(handle.db, 'x').compile().sql;
  await handle.db.transaction().execute((trx) => byId(trx, 'a').execute());
  await handle.db.transaction().execute((trx) => byId(trx, 'b').execute());
  assert.equal((await prepared()).filter((s) => s === text).length, 1);
});

test('a statement outside a transaction, or projecting every column, is not prepared', async () => {
  const outside = handle.db.selectFrom('owners').select('id').where('email', '=', 'ada@example.com');
  await outside.execute();
  const every = (db: DatabaseHandle['db']) => db.selectFrom('owners').selectAll().where('id', '=', 'z');
  await handle.db.transaction().execute((trx) => every(trx).execute());
  const texts = await prepared();
  assert.ok(!texts.includes(outside.compile().sql));
  assert.ok(!texts.includes(every(handle.db).compile().sql));
});

test('a column added while the service runs breaks none of its transactions', async () => {
  const every = (db: DatabaseHandle['db']) => db.selectFrom('owners').selectAll().where('id', '=', 'z');
  await handle.db.transaction().execute(async (trx) => {
    await byId(trx, 'a').execute();
    await every(trx).execute();
  });
  await sql`ALTER TABLE websites ADD COLUMN added_meanwhile text`.execute(handle.db);
  await sql`ALTER TABLE owners ADD COLUMN added_meanwhile text`.execute(handle.db);
  const [website, owner] = await handle.db
    .transaction()
    .execute(async (trx) => [await byId(trx, 'a').execute(), await every(trx).execute()]);
  assert.deepEqual([website, owner], [[], []]);
});

test("the whole rows a write reads (a product's, its variants', a kept key's) are read by prepared statements", async () => {
  const key = { website_id: 'w', caller: 'key:k', key: 'idem' };
  const before = await prepared();
  await handle.db.transaction().execute(async (trx) => {
    await lockProduct(trx, 'w', 'p');
    await selectProductVariants(trx, 'p');
    await findKey(trx, 'order_import_keys', key, new Date(0));
    await findKey(trx, 'inventory_adjustment_keys', key, new Date(0));
  });
  const added = (await prepared()).filter((text) => !before.includes(text) && !text.includes('pg_prepared'));
  const from = (text: string) => /from "(\w+)"/.exec(text)?.[1];
  assert.deepEqual(added.map(from).sort(), [
    'inventory_adjustment_keys',
    'order_import_keys',
    'products',
    'variants',
  ]);
});
