import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setImmediate, setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import sharp from 'sharp';
import { ListCache } from '../src/catalog/list-cache.ts';
import { productDocuments } from '../src/catalog/product-documents.ts';
import { listProducts } from '../src/catalog/products.read.ts';
import { stampRows } from '../src/db/change-clock.ts';
import { changingAfter } from './helpers/between-queries.ts';
import { createProduct, multipartFile, physical, variant } from './helpers/factories.ts';
import { applied, inventoryCalls, newKey, sku } from './helpers/inventory.ts';
import { noticed, testApp, type Site, type TestContext } from './helpers/test-app.ts';

/**
 * Incremental sync (api-details 4): apps keep a copy of the catalog by paging the list ordered
 * by modifiedOn and resuming where they stopped, with the cursor, with `modifiedAfter` set to the
 * newest `modifiedOn` they have seen, or with a window ending at their clock's "now". Whatever
 * the writers race, each ends having seen every product's final state. The interleavings that
 * lose changes are forced, with database locks, rather than hoped for.
 */

const LIST = '/1.1/commerce/products';
const EPOCH = '1970-01-01T00:00:00.000Z';
const FAR_FUTURE = '9999-12-31T23:59:59.999Z';

let ctx: TestContext;
before(async () => {
  ctx = await testApp({ logLevel: 'silent', imageWorkers: 1 });
});
after(() => ctx.close());

interface Product {
  id: string;
  name: string;
  modifiedOn: string;
  variants: { id: string }[];
}

interface ListBody {
  products: Product[];
  pagination: { hasNextPage: boolean; nextPageCursor: string | null };
}

/** A sync client: the newest version it has seen of each product. */
interface Reader {
  kind: string;
  seen: Map<string, Product>;
  /** Reads from where it stopped to the end of the list. */
  catchUp(): Promise<void>;
}

async function page(s: Site, query: Record<string, string>): Promise<ListBody> {
  const res = await s.call({ method: 'GET', url: `${LIST}?${new URLSearchParams(query)}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

function keep(seen: Map<string, Product>, products: Product[]): void {
  for (const p of products) {
    const known = seen.get(p.id);
    if (!known || known.modifiedOn <= p.modifiedOn) seen.set(p.id, p);
  }
}

/**
 * Pages from `first` to the last page; returns the query of the last page read, which is where
 * a cursor reader resumes (the last page has no next cursor).
 */
async function readToEnd(
  s: Site,
  first: Record<string, string>,
  seen: Map<string, Product>,
): Promise<Record<string, string>> {
  let query = first;
  for (;;) {
    const body = await page(s, query);
    keep(seen, body.products);
    if (!body.pagination.nextPageCursor) return query;
    query = { cursor: body.pagination.nextPageCursor };
  }
}

function cursorReader(s: Site): Reader {
  const seen = new Map<string, Product>();
  let resume: Record<string, string> = {};
  return {
    kind: 'cursor',
    seen,
    async catchUp() {
      resume = await readToEnd(s, resume, seen);
    },
  };
}

function modifiedAfterReader(s: Site): Reader {
  const seen = new Map<string, Product>();
  let newest = EPOCH;
  return {
    kind: 'modifiedAfter',
    seen,
    async catchUp() {
      await readToEnd(s, { modifiedAfter: newest, modifiedBefore: FAR_FUTURE }, seen);
      for (const p of seen.values()) if (p.modifiedOn > newest) newest = p.modifiedOn;
    },
  };
}

/** Windows (from, now], each starting where the last ended; its clock is the service's. */
function windowReader(s: Site): Reader {
  const seen = new Map<string, Product>();
  let from = EPOCH;
  return {
    kind: 'window',
    seen,
    async catchUp() {
      const now = ctx.clock.now().toISOString();
      await readToEnd(s, { modifiedAfter: from, modifiedBefore: now }, seen);
      from = now;
    },
  };
}

const readersOf = (s: Site) => [cursorReader(s), modifiedAfterReader(s), windowReader(s)];

/** Every product of the site as it is now, by id (not through the list). */
async function current(s: Site, ids: string[]): Promise<Product[]> {
  const all: Product[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const res = await s.call({ method: 'GET', url: `${LIST}/${ids.slice(i, i + 50).join(',')}` });
    assert.equal(res.statusCode, 200, res.body);
    all.push(...res.json().products);
  }
  return all;
}

async function assertSawFinalState(readers: Reader[], products: Product[]): Promise<void> {
  const missed = (reader: Reader) =>
    products
      .filter((p) => JSON.stringify(reader.seen.get(p.id)) !== JSON.stringify(p))
      .map((p) => `${p.name} ${p.modifiedOn}`);
  assert.deepEqual(
    Object.fromEntries(readers.map((reader) => [reader.kind, missed(reader)])),
    Object.fromEntries(readers.map((reader) => [reader.kind, []])),
    'every reader has seen the final state of every product',
  );
}

async function stockedProducts(s: Site, count: number): Promise<Product[]> {
  const made: Product[] = [];
  for (let i = 0; i < count; i++) {
    made.push(
      await createProduct(
        s,
        physical(s, { name: `Item ${i}`, variants: [variant(sku(), { stock: { quantity: 50 } })] }),
      ),
    );
  }
  return made;
}

const rename = async (s: Site, id: string, name: string) => {
  const res = await s.call({ method: 'POST', url: `${LIST}/${id}`, payload: { name } });
  assert.equal(res.statusCode, 200, res.body);
};

const picture = sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6' } })
  .png()
  .toBuffer();

/** Uploads an image and waits until the worker has finished it: a change of the product. */
async function imageCompleted(s: Site, productId: string): Promise<void> {
  const res = await s.call({
    method: 'POST',
    url: `${LIST}/${productId}/images`,
    ...multipartFile('file', 'photo.png', await picture),
  });
  assert.equal(res.statusCode, 202, res.body);
  await ctx.imageProcessed(res.json().imageId);
}

/** Resolves once `count` sessions of this test's database wait for a lock (bounded: 10 s). */
async function lockWaits(count: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await delay(5)) {
    const { rows } = await sql<{ waiting: number }>`
      SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(ctx.db);
    if (rows[0]!.waiting >= count) return;
  }
  throw new Error(`fewer than ${count} sessions ever waited for a lock`);
}

/**
 * Holds an inventory adjustment with this idempotency key at the point where it keeps its key:
 * another session has inserted the same key and neither commits nor rolls back until release().
 */
async function holdAdjustment(s: Site, key: string): Promise<{ release(): Promise<void> }> {
  const keyId = await ctx.db
    .selectFrom('api_keys')
    .select('id')
    .where('website_id', '=', s.websiteId)
    .executeTakeFirstOrThrow();
  const client = new pg.Client({ connectionString: ctx.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO inventory_adjustment_keys (website_id, caller, key, request_digest, created_at)
     VALUES ($1, $2, $3, '\\x00', now())`,
    [s.websiteId, `key:${keyId.id}`, key],
  );
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

describe('incremental sync', () => {
  test('an adjustment of several products committing after later changes is seen by every kind of reader', async () => {
    const s = await ctx.site();
    const { adjust } = inventoryCalls(() => s);
    const products = await stockedProducts(s, 60);
    const readers = readersOf(s);
    for (const reader of readers) await reader.catchUp();

    // The adjustment of the first two products starts, and is held before its commit...
    const key = newKey();
    const hold = await holdAdjustment(s, key);
    const adjusting = adjust(
      {
        decrementOperations: products.slice(0, 2).map((p) => ({ variantId: p.variants[0]!.id, quantity: 1 })),
      },
      key,
    );
    await lockWaits(1);
    // ...while more than a page of other changes commits, an image completion among them, and
    // every reader reads them all.
    for (const p of products.slice(2, 57)) await rename(s, p.id, `${p.name} renamed`);
    await imageCompleted(s, products[57]!.id);
    for (const reader of readers) await reader.catchUp();

    await hold.release();
    applied(await adjusting);
    for (const reader of readers) await reader.catchUp();
    await assertSawFinalState(
      readers,
      await current(
        s,
        products.map((p) => p.id),
      ),
    );
  });

  test('a window read waits for a change stamped in it but not yet committed, and the next window misses nothing', async () => {
    const s = await ctx.site();
    const products = await stockedProducts(s, 3);
    const reader = windowReader(s);
    await reader.catchUp();

    // A writer between its stamp and its commit, as every change is for a moment.
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let stamped!: () => void;
    const isStamped = new Promise<void>((resolve) => (stamped = resolve));
    const writer = ctx.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('products')
        .set({ name: 'Stamped before the read' })
        .where('id', '=', products[1]!.id)
        .execute();
      await stampRows(trx, ctx.clock, s.websiteId, 'products', [products[1]!.id]);
      stamped();
      await committing;
    });
    await isStamped;

    const reading = reader.catchUp();
    await lockWaits(1);
    const announced = noticed(ctx.changes, 'product', products[1]!.id);
    commit();
    await writer;
    await announced; // so that the read of the final state below is not an older cached one
    await reading;
    await reader.catchUp();
    await assertSawFinalState(
      [reader],
      await current(
        s,
        products.map((p) => p.id),
      ),
    );
  });

  test('a window ending up to 1 s ahead is closed: later changes sort after its end; one further ahead is left open', async () => {
    const s = await ctx.site();
    const [product] = await stockedProducts(s, 1);
    const windowTo = async (aheadMs: number) => {
      const end = new Date(ctx.clock.now().getTime() + aheadMs).toISOString();
      await page(s, { modifiedAfter: EPOCH, modifiedBefore: end });
      await rename(s, product!.id, `After a window ${aheadMs} ms ahead`);
      const [changed] = await current(s, [product!.id]);
      return { end, modifiedOn: changed!.modifiedOn };
    };
    const near = await windowTo(900);
    assert.ok(near.modifiedOn > near.end, `${near.modifiedOn} sorts after ${near.end}`);
    const far = await windowTo(5000);
    assert.ok(far.modifiedOn < far.end, 'the clock is not moved 5 s into the future');
  });

  test('a product changed while its page is built is read again: it comes later, on this page when it is the last', async () => {
    const s = await ctx.site();
    const products = await stockedProducts(s, 4);
    const changed = products[1]!;
    // The list's query of positions returns, then the product changes, then the page is built.
    const { pool, state } = changingAfter(ctx.api.pool, /order by "products"\."modified_on"/, () =>
      rename(s, changed.id, 'Renamed while the page was built'),
    );
    // Empty caches: the page's documents are rendered from the database, after the change.
    const deps = { ...ctx.api, pool, documents: productDocuments(1 << 20), lists: new ListCache() };
    const body: ListBody = JSON.parse(
      (await listProducts(deps, s.websiteId, {}, `https://api.emporium.test${LIST}`)).toString(),
    );
    assert.ok(state.changed, 'the product changed between the two reads of the page');
    assert.deepEqual(
      body.products.slice(0, 3).map((p) => [p.id, p.modifiedOn]),
      [products[0]!, products[2]!, products[3]!].map((p) => [p.id, p.modifiedOn]),
    );
    assert.equal(body.products[3]?.id, changed.id);
    assert.equal(body.products[3]?.name, 'Renamed while the page was built');
    assert.ok(body.products[3]!.modifiedOn > products[3]!.modifiedOn);
  });

  test('readers of every kind racing writers of every kind end having seen every final state', async () => {
    const s = await ctx.site();
    const { adjust } = inventoryCalls(() => s);
    const products = await stockedProducts(s, 40);
    const readers = readersOf(s);
    const pick = () => products[Math.floor(Math.random() * products.length)]!;

    let writing = true;
    const writers = [
      async () => {
        for (let i = 0; i < 40; i++) {
          const ops = [pick(), pick(), pick()].map((p) => ({ variantId: p.variants[0]!.id, quantity: 1 }));
          const unique = [...new Map(ops.map((op) => [op.variantId, op])).values()];
          applied(await adjust({ incrementOperations: unique }));
        }
      },
      async () => {
        for (let i = 0; i < 60; i++) await rename(s, pick().id, `Name ${i}`);
      },
      async () => {
        for (let i = 0; i < 3; i++) await imageCompleted(s, pick().id);
      },
    ];
    // A page served from memory involves no I/O: yield to it between reads, as a client on the
    // network would, or the readers starve the writers of this one process.
    const reading = readers.map(async (reader) => {
      while (writing) {
        await reader.catchUp();
        await setImmediate();
      }
    });
    await Promise.all(writers.map((write) => write()));
    writing = false;
    await Promise.all(reading);
    for (const reader of readers) await reader.catchUp();
    await assertSawFinalState(
      readers,
      await current(
        s,
        products.map((p) => p.id),
      ),
    );
  });
});
