import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import sharp from 'sharp';
import { ORPHAN_MIN_AGE_MS, sweepOrphanImages } from '../src/catalog/images/image-sweep.ts';
import { createProduct, multipartFile, physical } from './helpers/factories.ts';
import { assertError } from './helpers/shape.ts';
import { storedImageIds, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * The database goes away while an upload commits: the service cannot tell whether the image's
 * row committed, so the stored original must not be removed from under it. A trigger run at the
 * commit ends its own connection, as a database restarting at that moment would.
 */
let ctx: TestContext;
let site: Site;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', queue: true }); // the uploads' jobs stay queued
  site = await ctx.site();
});
after(() => ctx.close());

async function loseTheNextImageCommit(): Promise<void> {
  await sql`
    CREATE FUNCTION lose_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_terminate_backend(pg_backend_pid());
      RETURN NULL;
    END $$`.execute(ctx.db);
  await sql`
    CREATE CONSTRAINT TRIGGER lose_commit AFTER INSERT ON images DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION lose_commit()`.execute(ctx.db);
}

async function commitAgain(): Promise<void> {
  await sql`DROP TRIGGER lose_commit ON images`.execute(ctx.db);
  await sql`DROP FUNCTION lose_commit()`.execute(ctx.db);
}

test('an upload whose commit loses the database is a 503 that keeps its file for the sweep, which removes it once no row owns it', async () => {
  const p = await createProduct(site, physical(site));
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: 'navy' } })
    .jpeg()
    .toBuffer();
  const stored = new Set(await storedImageIds(ctx.storage));

  await loseTheNextImageCommit();
  try {
    const res = await site.call({
      method: 'POST',
      url: `/1.1/commerce/products/${p.id}/images`,
      ...multipartFile('file', 'navy.jpg', jpeg),
    });
    assertError(res, 503, 'SERVICE_UNAVAILABLE', null, /database/);
  } finally {
    await commitAgain();
  }
  const left = (await storedImageIds(ctx.storage)).filter((id) => !stored.has(id));
  assert.equal(left.length, 1, 'the original stays: its row might have committed');
  const product = await site.call({ method: 'GET', url: `/1.1/commerce/products/${p.id}` });
  assert.deepEqual(product.json().products[0].images, [], 'the row did not commit');

  const removed = await sweepOrphanImages({
    db: ctx.db,
    pool: ctx.api.pool,
    storage: ctx.storage,
    clock: { now: () => new Date(Date.now() + ORPHAN_MIN_AGE_MS + 60_000) },
  });
  assert.ok(removed! >= 1);
  assert.ok(!(await storedImageIds(ctx.storage)).includes(left[0]!), 'the sweep removed it');

  const again = await site.call({
    method: 'POST',
    url: `/1.1/commerce/products/${p.id}/images`,
    ...multipartFile('file', 'navy.jpg', jpeg),
  });
  assert.equal(again.statusCode, 202, again.body);
});
