import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { changeProduct } from '../src/catalog/product-changes.ts';
import type { Db } from '../src/db/database.ts';
import { createProduct, physical, variant } from './helpers/factories.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

/**
 * A product change writes the product's row once, with its stamp (db/change-clock.ts,
 * StampPart.values): each write of a row is a new version of it in every index of products, the
 * search text's trigram index among them, so a rename that wrote the row and then stamped it
 * paid that twice. A urlSlug is still written before the stamp: the clock's holder must not
 * wait at a unique index.
 */

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent' });
});
after(() => ctx.close());

/**
 * The rows of products this connection has updated and not yet reported to the statistics: the
 * difference over one transaction (which reports nothing before its end) is that transaction's.
 */
async function productUpdates(trx: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT n_tup_upd::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'products'`.execute(trx);
  return rows[0]?.n ?? 0;
}

/**
 * Runs a change of the product through changeProduct and returns how many product rows its
 * transaction updated.
 */
async function updatesOfChange(websiteId: string, productId: string, set: Record<string, unknown>) {
  let updates = -1;
  const db = new Proxy(ctx.db, {
    get(target, property, receiver) {
      if (property !== 'transaction') return Reflect.get(target, property, receiver);
      return () => ({
        execute: <T>(body: (trx: Db) => Promise<T>) =>
          target.transaction().execute(async (trx) => {
            const before = await productUpdates(trx);
            const result = await body(trx);
            updates = (await productUpdates(trx)) - before;
            return result;
          }),
      });
    },
  });
  await changeProduct({ ...ctx.api, db }, websiteId, productId, async () => ({ set, result: undefined }));
  return updates;
}

/** The product's search text as stored. */
async function searchTextOf(productId: string): Promise<string> {
  const row = await ctx.db
    .selectFrom('products')
    .select('search_text')
    .where('id', '=', productId)
    .executeTakeFirst();
  return row!.search_text;
}

test('a rename updates the product row once, and the read by id and the search text show the new name', async () => {
  const site = await ctx.site();
  const product = await createProduct(site, physical(site, { variants: [variant('ROW-ONCE-1')] }));

  assert.equal(await updatesOfChange(site.websiteId, product.id, { name: 'Written once' }), 1);

  const read = await site.call({ method: 'GET', url: `/1.1/commerce/products/${product.id}` });
  const [after] = read.json().products;
  assert.equal(after.name, 'Written once');
  assert.ok(after.modifiedOn > product.modifiedOn);
  assert.match(await searchTextOf(product.id), /written once/, 'the search text went with the name');
});

test('a urlSlug change is written before the stamp, the rest with it', async () => {
  const site = await ctx.site();
  const product = await createProduct(site, physical(site, { variants: [variant('ROW-ONCE-2')] }));

  assert.equal(
    await updatesOfChange(site.websiteId, product.id, { url_slug: 'moved-here', name: 'Moved' }),
    2,
  );

  const [after] = (await site.call({ method: 'GET', url: `/1.1/commerce/products/${product.id}` })).json()
    .products;
  assert.equal(after.urlSlug, 'moved-here');
  assert.equal(after.name, 'Moved');
});
