/**
 * Bulk-loads a benchmark catalog straight into the tables of the migration with set-based SQL
 * (INSERT ... SELECT FROM generate_series), with column values shaped like the service writes
 * them. The owner, website, store pages and API key are made by the service's own functions,
 * so the key works exactly like one the CLI would print.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { systemClock } from '../packages/server/src/shared/clock.ts';
import { openDatabase } from '../packages/server/src/db/database.ts';
import { descriptionText } from '../packages/server/src/catalog/description.ts';
import { searchText } from '../packages/server/src/catalog/product-rules.ts';
import { createStorePage } from '../packages/server/src/sites/store-pages.service.ts';
import { randomIds } from '../packages/server/src/shared/ids.ts';
import { createApiKey } from '../packages/server/src/sites/api-keys.service.ts';
import { createOwner } from '../packages/server/src/sites/owners.service.ts';
import { createWebsite } from '../packages/server/src/sites/websites.service.ts';

/** A word that occurs in the description of one product in RARE_EVERY, and nowhere else. */
export const RARE_WORD = 'zanzibar';
const RARE_EVERY = 50_000;
const BATCH = 50_000;

export interface Site {
  websiteId: string;
  storePageIds: string[];
  /** website.products.read */
  apiKey: string;
  /** website.products and website.inventory */
  writeKey: string;
  currency: string;
}

export interface LoadReport {
  products: number;
  variants: number;
  rareMatches: number;
  /** Milliseconds of the load's steps (see loadCatalog) and in all. */
  productsMs: number;
  trigramIndexMs: number;
  variantsMs: number;
  phase2Ms: number;
  finishMs: number;
  totalMs: number;
}

/**
 * Owner, website (with its "Shop" page), two more store pages, a read-only API key for the reads
 * and a key that may write products and stock, for the run with writes.
 */
export async function createSite(databaseUrl: string): Promise<Site> {
  const handle = openDatabase(databaseUrl, { max: 2 });
  try {
    const deps = { db: handle.db, clock: systemClock, ids: randomIds };
    const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
    await createOwner(deps, { email, password: randomBytes(12).toString('base64url') });
    const { websiteId, storePageId } = await createWebsite(deps, { ownerEmail: email, title: 'Bench Store' });
    const storePageIds = [storePageId];
    for (const title of ['Outlet', 'Gifts']) {
      storePageIds.push((await createStorePage(deps, { websiteId, title })).storePageId);
    }
    const { apiKey } = await createApiKey(deps, {
      websiteId,
      name: 'Benchmark',
      scopes: 'website.products.read',
    });
    const { apiKey: writeKey } = await createApiKey(deps, {
      websiteId,
      name: 'Benchmark writes',
      scopes: 'website.products,website.inventory',
    });
    const website = await handle.db
      .selectFrom('websites')
      .select('currency')
      .where('id', '=', websiteId)
      .executeTakeFirstOrThrow();
    return { websiteId, storePageIds, apiKey, writeKey, currency: website.currency };
  } finally {
    await handle.close();
  }
}

const ADJECTIVES = [
  'Classic', 'Modern', 'Vintage', 'Everyday', 'Premium', 'Rustic', 'Compact', 'Oversized', 'Slim',
  'Handmade', 'Organic', 'Lightweight', 'Heavy-Duty', 'Minimal', 'Bold', 'Soft', 'Sturdy', 'Elegant',
  'Portable', 'Weekend', 'Urban', 'Coastal', 'Alpine', 'Studio', 'Heritage', 'Signature', 'Essential',
  'Deluxe', 'Travel', 'Nordic',
]; // prettier-ignore
const MATERIALS = [
  'Cotton', 'Linen', 'Wool', 'Leather', 'Canvas', 'Bamboo', 'Oak', 'Walnut', 'Ceramic', 'Steel',
  'Brass', 'Copper', 'Glass', 'Denim', 'Cashmere', 'Silk', 'Suede', 'Cork', 'Marble', 'Hemp',
]; // prettier-ignore
const NOUNS = [
  'Shirt', 'Tote Bag', 'Backpack', 'Mug', 'Lamp', 'Chair', 'Scarf', 'Jacket', 'Notebook', 'Wallet',
  'Candle', 'Blanket', 'Vase', 'Bowl', 'Cutting Board', 'Sweater', 'Hat', 'Belt', 'Planter',
  'Bottle', 'Watch Strap', 'Apron', 'Pillow', 'Rug', 'Tray', 'Sneakers', 'Socks', 'Dress', 'Shelf',
  'Clock',
]; // prettier-ignore
const USES = [
  'everyday use', 'long weekends away', 'the home office', 'slow mornings', 'gifting',
  'the kitchen', 'city commutes', 'outdoor dinners', 'quiet evenings', 'the studio',
  'small spaces', 'rainy afternoons',
]; // prettier-ignore
const FEATURES = [
  'Machine washable', 'Ships in recycled packaging', 'Two year warranty', 'Fits most sizes',
  'Naturally antibacterial', 'Hand finished edges', 'Reinforced stitching', 'Water resistant coating',
  'Free returns within 30 days', 'Sustainably sourced materials', 'Dishwasher safe', 'Lead free glaze',
  'Adjustable strap', 'Fade resistant colour', 'Made in small batches', 'Gift wrapping available',
]; // prettier-ignore
const CITIES = [
  'Lisbon', 'Copenhagen', 'Kyoto', 'Oaxaca', 'Marrakesh', 'Portland', 'Melbourne', 'Florence',
  'Istanbul', 'Reykjavik', 'Montreal', 'Cape Town', 'Seoul', 'Valencia',
]; // prettier-ignore
const FINISHES = [
  'finished by hand', 'tested for years of use', 'dyed with plant pigments', 'sewn in a family workshop',
  'fired twice for strength', 'oiled for a soft sheen', 'cut from a single piece',
  'woven on traditional looms',
]; // prettier-ignore
const CARE = [
  'Wipe clean with a damp cloth.', 'Wash cold, dry flat.', 'Keep out of direct sunlight.',
  'Oil twice a year.', 'Hand wash only.', 'Store in a dry place.',
]; // prettier-ignore
const TAGS_A = [
  'apparel', 'home', 'kitchen', 'accessories', 'outdoor', 'office', 'decor', 'travel', 'gifts', 'bath',
]; // prettier-ignore
const TAGS_B = [
  'new', 'bestseller', 'sale', 'limited', 'eco', 'handmade', 'summer', 'winter', 'spring', 'autumn',
  'classic', 'premium',
]; // prettier-ignore
const CATALOG = 'emporium-bench';

const VOCABULARY: Record<string, string[]> = {
  adj: ADJECTIVES,
  mat: MATERIALS,
  noun: NOUNS,
  use: USES,
  feat: FEATURES,
  city: CITIES,
  fin: FINISHES,
  care: CARE,
  taga: TAGS_A,
  tagb: TAGS_B,
};

const DAY_MS = 86_400_000;
const PRODUCT_ID = `substr(md5('${CATALOG}:' || $1 || ':' || g.i), 1, 24)`;
const SKU_STEM = `'EMP-' || upper(lpad(to_hex(g.i), 6, '0')) || '-'`;
/** Per-row hashes; created_ago is up to two years before "now" ($4), in milliseconds. */
const HASHES = `CROSS JOIN LATERAL (
    SELECT hashint8extended(g.i, 11) AS h1, hashint8extended(g.i, 12) AS h2, hashint8extended(g.i, 13) AS h3,
      (hashint8extended(g.i, 14) & 9223372036854775807) % ${730 * DAY_MS} AS created_ago
  ) r`;
const CREATED_ON = `$4::timestamptz - make_interval(secs => r.created_ago / 1000.0)`;

/**
 * A batch of products, ids first..last. Every "random" choice is a slice of a 64-bit hash of the
 * row number, so a catalog is reproducible while ids, names and times look unordered.
 * $1 website, $2 first, $3 last, $4 "now", $5 store page ids, then the vocabulary lists.
 */
function productsSql(): string {
  const names = Object.keys(VOCABULARY);
  const list = (name: string) => `$${6 + names.indexOf(name)}::text[]`;
  // The k-th 10-bit slice of a hash picks an element of a vocabulary list.
  const pick = (name: string, h: 'h1' | 'h2' | 'h3', k: number) =>
    `(${list(name)})[1 + ((r.${h} >> ${k * 10}) & 1023) % cardinality(${list(name)})]`;
  return `
INSERT INTO products (id, website_id, store_page_id, type, name, description, url_slug, tags, is_visible,
  variant_attributes, currency, base_price_minor, sale_price_minor, on_sale, seo_options, digital_good,
  search_text, created_on, modified_on)
SELECT ${PRODUCT_ID}, $1, ($5::text[])[1 + g.i % cardinality($5::text[])], 'PHYSICAL', p.name, d.description,
  regexp_replace(lower(p.name), '[^a-z0-9]+', '-', 'g') || '-' || g.i, p.tags, (r.h3 & 15) <> 0,
  ARRAY['Size'], NULL, NULL, NULL, NULL,
  CASE WHEN (r.h3 >> 4) & 3 = 0
    THEN jsonb_build_object('title', p.name || ' | Bench Store', 'description', p.lead) END,
  NULL,
  -- what searchText() computes: name, description text, tags, SKUs, lower-cased
  lower(p.name || ' ' || d.description_text || ' ' || array_to_string(p.tags, ' ') || ' '
    || ${SKU_STEM} || 'S ' || ${SKU_STEM} || 'M ' || ${SKU_STEM} || 'L'),
  ${CREATED_ON},
  -- modified some time between creation and now
  $4::timestamptz - make_interval(secs => ((r.h2 >> 1) & 9223372036854775807) % (r.created_ago + 1) / 1000.0)
FROM generate_series($2::bigint, $3::bigint) AS g(i)
${HASHES}
CROSS JOIN LATERAL (
  SELECT ${pick('adj', 'h1', 0)} || ' ' || ${pick('mat', 'h1', 1)} || ' ' || ${pick('noun', 'h1', 2)} AS name,
    'A ' || lower(${pick('adj', 'h1', 3)}) || ' ' || lower(${pick('noun', 'h1', 2)}) || ' made from '
      || lower(${pick('mat', 'h1', 1)}) || ', for ' || ${pick('use', 'h1', 4)} || '.' AS lead,
    ${pick('feat', 'h1', 5)} AS f1, ${pick('feat', 'h2', 0)} AS f2, ${pick('feat', 'h2', 1)} AS f3,
    'Designed in ' || CASE WHEN g.i % ${RARE_EVERY} = 7 THEN 'Zanzibar' ELSE ${pick('city', 'h2', 2)} END
      || ' and ' || ${pick('fin', 'h2', 5)} || '. ' || ${pick('care', 'h3', 4)} AS story,
    ARRAY[${pick('taga', 'h2', 3)}, ${pick('tagb', 'h2', 4)}] AS tags
) p
CROSS JOIN LATERAL (
  SELECT '<p>' || p.lead || E'</p>\\n<ul>\\n<li>' || p.f1 || E'</li>\\n<li>' || p.f2 || E'</li>\\n<li>' || p.f3
      || E'</li>\\n</ul>\\n<p>' || p.story || '</p>' AS description,
    -- descriptionText(): tags dropped, a space before each block tag so blocks stay apart
    ' ' || p.lead || E' \\n \\n ' || p.f1 || E' \\n ' || p.f2 || E' \\n ' || p.f3 || E' \\n \\n ' || p.story
      || ' ' AS description_text
) d`;
}

/**
 * The 3 variants (sizes S, M, L) of products first..last, recomputing the product id, SKUs and
 * creation time from the row number. $1 website, $2 first, $3 last, $4 "now", $5 currency,
 * $6 weight unit, $7 dimension unit.
 */
function variantsSql(): string {
  return `
INSERT INTO variants (id, product_id, website_id, position, sku, attributes, currency, base_price_minor,
  sale_price_minor, on_sale, stock_quantity, stock_unlimited, weight_unit, weight_value, dimension_unit,
  length, width, height, image_id, created_at)
SELECT gen_random_uuid(), ${PRODUCT_ID}, $1, v.pos, ${SKU_STEM} || v.size, v.attributes, $5,
  b.base, CASE WHEN b.on_sale THEN b.base * 8 / 10 ELSE 0 END, b.on_sale,
  ((r.h2 >> (20 + v.pos * 8)) & 255)::int, ((r.h3 >> 40) & 31) = 0,
  $6, ((r.h1 >> 52) & 255) / 20.0 + 0.1 + v.pos * 0.05, $7,
  4 + ((r.h1 >> 60) & 15), 3 + ((r.h2 >> 60) & 7), 1 + ((r.h3 >> 60) & 7), NULL, ${CREATED_ON}
FROM generate_series($2::bigint, $3::bigint) AS g(i)
${HASHES}
CROSS JOIN (VALUES (0, 'S', '{"Size": "S"}'::jsonb), (1, 'M', '{"Size": "M"}'::jsonb),
                   (2, 'L', '{"Size": "L"}'::jsonb)) AS v(pos, size, attributes)
CROSS JOIN LATERAL (
  SELECT (100 * (5 + ((r.h3 >> 8) & 1023) % 400) - 5 + v.pos * 200)::bigint AS base,
    ((r.h3 >> 44) & 7) = 0 AS on_sale
) b`;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

export interface Definition {
  /** One of the loaded tables; for a foreign key, any table that references them (images). */
  table: string;
  name: string;
  kind: 'p' | 'u' | 'f' | 'index';
  /** CREATE INDEX for indexes and keys, ALTER TABLE ... ADD CONSTRAINT for foreign keys. */
  build: string;
  /** For keys: ALTER TABLE ... ADD CONSTRAINT ... USING INDEX, once the index is built. */
  attach: string | null;
  gin: boolean;
}

/**
 * Keys, unique and foreign-key constraints touching the tables to load (products and variants
 * here, orders in load-orders.ts), and their other indexes: dropped before the load and rebuilt
 * from their own definitions after it (PostgreSQL's "Populating a Database" recipe), so what
 * gets rebuilt is whatever the migrations define. A key is rebuilt as a unique index first (which
 * other index builds on the table do not wait for), then attached as the constraint.
 */
export async function definitions(client: pg.Client, tables: string[]): Promise<Definition[]> {
  const { rows } = await client.query<Definition & { deferrable: boolean }>(
    `
    SELECT c.conrelid::regclass::text AS table, c.conname AS name, c.contype::text AS kind,
      CASE WHEN c.contype = 'f'
        THEN format('ALTER TABLE %s ADD CONSTRAINT %I %s', c.conrelid::regclass, c.conname,
          pg_get_constraintdef(c.oid))
        ELSE pg_get_indexdef(c.conindid) END AS build,
      CASE WHEN c.contype <> 'f'
        THEN format('ALTER TABLE %s ADD CONSTRAINT %I %s USING INDEX %I', c.conrelid::regclass, c.conname,
          CASE c.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END, x.relname) END AS attach,
      false AS gin, c.condeferrable AS deferrable
    FROM pg_constraint c LEFT JOIN pg_class x ON x.oid = c.conindid
    WHERE c.contype IN ('p', 'u', 'f')
      AND (c.conrelid = ANY($1::regclass[]) OR c.confrelid = ANY($1::regclass[]))
    UNION ALL
    SELECT i.indrelid::regclass::text, x.relname, 'index', pg_get_indexdef(i.indexrelid), NULL,
      am.amname = 'gin', false
    FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_am am ON am.oid = x.relam
    WHERE i.indrelid = ANY($1::regclass[])
      AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    [tables],
  );
  for (const row of rows) {
    // Another table's foreign key to the loaded ones is dropped and added back like the others.
    if (row.kind !== 'f' && !tables.includes(row.table)) {
      throw new Error(`the load does not know table ${row.table}, which references ${tables.join(', ')}`);
    }
    if (row.deferrable) throw new Error(`the load cannot rebuild the deferrable constraint ${row.name}`);
  }
  return rows;
}

/** Drops what definitions() found: foreign keys first, then keys, then the other indexes. */
export async function dropDefinitions(client: pg.Client, defs: Definition[]): Promise<void> {
  const order = (d: Definition) => ['f', 'p', 'u', 'index'].indexOf(d.kind);
  for (const d of [...defs].sort((x, y) => order(x) - order(y))) {
    await client.query(
      d.kind === 'index' ? `DROP INDEX ${d.name}` : `ALTER TABLE ${d.table} DROP CONSTRAINT ${d.name}`,
    );
  }
}

/** A loading session: commits not waited for, memory for index builds, a bound on each statement. */
export async function session(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`SET synchronous_commit = off`);
  await client.query(`SET maintenance_work_mem = '512MB'`);
  await client.query(`SET statement_timeout = '300s'`);
  return client;
}

async function runAll(client: pg.Client, statements: string[]): Promise<void> {
  for (const statement of statements) await client.query(statement);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Loads `count` products with 3 variants each into a website of a new database (the catalog
 * tables must be empty: their keys and indexes are dropped during the load). Two sessions, one
 * a core: (1) both insert products; (2) one builds the trigram index, the long part, with one
 * parallel worker, then vacuums products, while the other builds the other product indexes,
 * inserts the variants, indexes and vacuums them; (3) keys attached, foreign keys checked.
 */
export async function loadCatalog(
  databaseUrl: string,
  site: Site,
  count: number,
  log: (line: string) => void,
): Promise<LoadReport> {
  const a = await session(databaseUrl);
  const b = await session(databaseUrl);
  try {
    const { rows: existing } = await a.query<{ n: string }>('SELECT count(*) AS n FROM products');
    if (Number(existing[0]?.n) !== 0)
      throw new Error('the products table is not empty: load into a new database');
    const website = await a.query<{ measurement_standard: string }>(
      'SELECT measurement_standard FROM websites WHERE id = $1',
      [site.websiteId],
    );
    const metric = website.rows[0]?.measurement_standard === 'METRIC';
    const started = performance.now();

    const defs = await definitions(a, ['products', 'variants']);
    await dropDefinitions(a, defs);
    const builds = (table: Definition['table'], gin: boolean) =>
      defs.filter((d) => d.table === table && d.kind !== 'f' && d.gin === gin).map((d) => d.build);
    const attaches = defs.flatMap((d) => (d.attach ? [d.attach] : []));
    const foreignKeys = defs.filter((d) => d.kind === 'f').map((d) => d.build);

    const now = new Date();
    const batches: [number, number][] = [];
    for (let first = 1; first <= count; first += BATCH)
      batches.push([first, Math.min(first + BATCH - 1, count)]);
    const insert = async (client: pg.Client, sql: string, queue: [number, number][], params: unknown[]) => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        await client.query(sql, [site.websiteId, batch[0], batch[1], now, ...params]);
      }
    };

    const productParams = [site.storePageIds, ...Object.values(VOCABULARY)];
    const productQueue = [...batches];
    const [, productsMs] = await timed(() =>
      Promise.all([a, b].map((client) => insert(client, productsSql(), productQueue, productParams))),
    );
    log(`  ${count} products inserted in ${seconds(productsMs)}`);

    const variantParams = [site.currency, metric ? 'KILOGRAM' : 'POUND', metric ? 'CENTIMETER' : 'INCH'];
    const [[trigramIndexMs, variantsMs], phase2Ms] = await timed(() =>
      Promise.all([
        timed(async () => {
          await a.query('SET max_parallel_maintenance_workers = 1');
          await runAll(a, builds('products', true));
          await a.query('RESET max_parallel_maintenance_workers');
          await a.query('VACUUM (ANALYZE) products');
        }).then(([, ms]) => {
          log(`  trigram index built, products vacuumed in ${seconds(ms)}`);
          return ms;
        }),
        timed(async () => {
          await b.query('SET max_parallel_maintenance_workers = 0');
          await runAll(b, builds('products', false));
          await insert(b, variantsSql(), [...batches], variantParams);
          await runAll(b, builds('variants', false));
          await runAll(b, builds('variants', true));
          await b.query('VACUUM (ANALYZE) variants');
        }).then(([, ms]) => {
          log(
            `  other product indexes built, ${count * 3} variants inserted, indexed and vacuumed in ${seconds(ms)}`,
          );
          return ms;
        }),
      ]),
    );
    const [, finishMs] = await timed(() => runAll(a, [...attaches, ...foreignKeys]));
    const totalMs = performance.now() - started;
    log(`  keys attached, foreign keys checked in ${seconds(finishMs)}`);

    const counts = await a.query<{ products: string; variants: string; rare: string }>(
      `SELECT (SELECT count(*) FROM products WHERE website_id = $1) AS products,
              (SELECT count(*) FROM variants WHERE website_id = $1) AS variants,
              (SELECT count(*) FROM products WHERE website_id = $1 AND search_text LIKE $2) AS rare`,
      [site.websiteId, `%${RARE_WORD}%`],
    );
    log(`  ${await checkSearchText(a, site.websiteId)}`);
    const row = counts.rows[0]!;
    return {
      products: Number(row.products),
      variants: Number(row.variants),
      rareMatches: Number(row.rare),
      productsMs,
      trigramIndexMs,
      variantsMs,
      phase2Ms,
      finishMs,
      totalMs,
    };
  } finally {
    await Promise.all([a.end(), b.end()]);
  }
}

/** Whether the loaded search_text is what the service itself computes from the other columns. */
async function checkSearchText(client: pg.Client, websiteId: string): Promise<string> {
  const { rows } = await client.query<{
    name: string;
    description: string;
    tags: string[];
    skus: string[];
    search_text: string;
  }>(
    `SELECT p.name, p.description, p.tags, p.search_text,
       ARRAY(SELECT sku FROM variants v WHERE v.product_id = p.id ORDER BY position) AS skus
     FROM products p TABLESAMPLE SYSTEM (1) WHERE p.website_id = $1 LIMIT 50`,
    [websiteId],
  );
  if (rows.length === 0) throw new Error('no products to check');
  let differ = 0;
  let example = '';
  for (const row of rows) {
    const expected = searchText({
      name: row.name,
      descriptionText: descriptionText(row.description),
      tags: row.tags,
      skus: row.skus,
    });
    if (expected !== row.search_text) {
      differ++;
      example ||= `\n    loaded:  ${JSON.stringify(row.search_text)}\n    service: ${JSON.stringify(expected)}`;
    }
  }
  return differ === 0
    ? `search_text of ${rows.length} sampled products equals what the service computes`
    : `WARNING: search_text of ${differ} of ${rows.length} sampled products differs from what the service ` +
        `computes now (update bench/load-catalog.ts):${example}`;
}
