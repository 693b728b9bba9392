import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import { PostgresWithEmptyInLists } from '../src/db/empty-in-lists.ts';

/**
 * An empty `in` list never reaches PostgreSQL, where `in ()` is a syntax error: it matches
 * nothing, `not in` an empty list everything; every other query is sent as written.
 */

interface Tables {
  products: { id: string; website_id: string; tags: string[] };
  variants: { id: string; product_id: string };
}

/** Kysely compiling as the service does, or as Kysely itself would: no database behind either. */
function compiler(emptyLists: boolean) {
  const dialect = new PostgresWithEmptyInLists({ pool: {} as never });
  return new Kysely<Tables>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => (emptyLists ? dialect.createQueryCompiler() : new PostgresQueryCompiler()),
    },
  });
}

const db = compiler(true);

test('an empty in list matches nothing and an empty not in list everything', () => {
  const none = db.selectFrom('products').select('id').where('id', 'in', []).compile();
  assert.equal(none.sql, 'select "id" from "products" where 1 = 0');
  const all = db.selectFrom('products').select('id').where('id', 'not in', []).compile();
  assert.equal(all.sql, 'select "id" from "products" where 1 = 1');
});

test('an empty list deep in a query (a subquery of an update) is found too', () => {
  const query = db
    .updateTable('products')
    .set({ website_id: 'w' })
    .where('id', 'in', (eb) => eb.selectFrom('variants').select('product_id').where('id', 'in', []))
    .compile();
  assert.equal(
    query.sql,
    'update "products" set "website_id" = $1 where "id" in (select "product_id" from "variants" where 1 = 0)',
  );
});

test('a query without an empty list is sent as written, values that are empty arrays included', () => {
  const plain = compiler(false);
  const queries = (k: typeof db) => [
    k.selectFrom('products').select('id').where('id', 'in', ['a', 'b']).where('website_id', '=', 'w'),
    k.insertInto('products').values({ id: 'a', website_id: 'w', tags: [] }),
    k
      .selectFrom('products')
      .select('id')
      .where(sql<boolean>`tags && ${[]}::text[]`),
  ];
  const written = queries(plain).map((q) => q.compile());
  const sent = queries(db).map((q) => q.compile());
  assert.deepEqual(
    sent.map(({ sql, parameters }) => ({ sql, parameters })),
    written.map(({ sql, parameters }) => ({ sql, parameters })),
  );
});
