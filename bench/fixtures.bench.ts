/**
 * Site fixture load benchmark: `loadFixture` of a site of `--products` products (two variants
 * each, with stock), in this process, on an embedded database in a new temporary folder (or on
 * DATABASE_URL). See bench/README.md.
 *
 *   npm run bench:fixtures -- --products 1000 --runs 5
 *
 * Each run loads the same fixture as a new website of one owner and is timed from the call to
 * its return: the document's checks, then every product through the products service. Target:
 * 1,000 products within 2 s. Then one run through the CLI (`emporium fixtures load`), process
 * start included. The folder, the database server and the connections are removed at the end.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { apiDeps } from '../packages/server/src/deps.ts';
import { connect } from '../packages/server/src/db/connect.ts';
import { serverSecret } from '../packages/server/src/db/server-secrets.ts';
import { Jobs } from '../packages/server/src/jobs/queue.ts';
import { FileImageStorage } from '../packages/server/src/media/storage.ts';
import { systemClock } from '../packages/server/src/shared/clock.ts';
import { randomIds } from '../packages/server/src/shared/ids.ts';
import { createOwner } from '../packages/server/src/sites/owners.service.ts';
import { loadFixture } from '../packages/server/src/testing/fixtures/load-fixture.ts';
import type { SiteFixture } from '../packages/server/src/testing/fixtures/fixture.schemas.ts';
import { webhookSettings } from '../packages/server/src/webhooks/delivery.ts';
import { fmt, log, percentile, undoOnExit } from './harness.ts';
import { positive, revision } from './list-runs.ts';

const TARGET_MS = 2000;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: { products: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } },
  strict: true,
});
const productCount = positive('products', args.products);
const runs = positive('runs', args.runs);

/** A catalogue as a shop's: names, descriptions, tags, two glazes a product with their stock. */
function fixture(count: number): SiteFixture {
  const usd = (value: string) => ({ currency: 'USD', value });
  return {
    website: { title: 'Bench Pottery' },
    products: Array.from({ length: count }, (_, i) => ({
      type: 'PHYSICAL' as const,
      name: `Stoneware Piece ${i}`,
      description: `<p>Thrown by hand, number ${i}.</p>`,
      tags: ['stoneware', i % 2 ? 'mug' : 'bowl'],
      isVisible: true,
      variantAttributes: ['Glaze'],
      variants: ['Sand', 'Slate'].map((glaze, j) => ({
        sku: `P${i}-${glaze.toUpperCase()}`,
        attributes: { Glaze: glaze },
        pricing: { basePrice: usd(`${10 + (i % 40)}.00`) },
        stock: { quantity: 10 + j },
      })),
    })),
  };
}

const undo = undoOnExit(30 * 60_000);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-fixtures-bench-'));
// The embedded server runs as its own user, which must be able to enter the folder.
fs.chmodSync(tmp, 0o755);
undo.add(async () => fs.rmSync(tmp, { recursive: true, force: true }));
const dataDir = path.join(tmp, 'data');
const databaseUrl = process.env.DATABASE_URL || undefined;
try {
  const connection = await connect({ databaseUrl, dataDir }, 10);
  undo.add(() => connection.shutdown());
  const jobs = new Jobs(connection.url);
  await jobs.start();
  undo.add(() => jobs.stop());
  const deps = apiDeps({
    db: connection.db,
    pool: connection.pool,
    clock: systemClock,
    ids: randomIds,
    config: {
      baseUrl: 'http://127.0.0.1:8080',
      authUrl: 'http://127.0.0.1:8080',
      logLevel: 'silent',
      rateLimitPerMinute: 300,
    },
    storage: new FileImageStorage(path.join(dataDir, 'images')),
    jobs,
    cursorKey: await serverSecret(connection.db, 'cursor'),
    webhooks: webhookSettings(await serverSecret(connection.db, 'webhook'), false),
  });
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  await createOwner(deps, { email, password: randomBytes(12).toString('base64url') });
  const site = fixture(productCount);

  log(
    `fixtures load benchmark, ${fmt(productCount)} products (2 variants each), ${runs} runs; ${revision()}`,
  );
  log(
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), database ${databaseUrl ? 'DATABASE_URL' : 'embedded'}`,
  );
  const times: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const start = performance.now();
    await loadFixture(deps, site, { ownerEmail: email });
    const ms = performance.now() - start;
    times.push(ms);
    log(`  run ${run}: ${fmt(ms)} ms (${fmt(ms / productCount, 2)} ms a product)`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = percentile(sorted, 50);
  log(`in process: median ${fmt(median)} ms, best ${fmt(sorted[0]!)} ms, worst ${fmt(sorted.at(-1)!)} ms`);

  // The same through the CLI, as a developer's test suite would run it: process start included.
  const file = path.join(tmp, 'site.json');
  fs.writeFileSync(file, JSON.stringify(site));
  const start = performance.now();
  const cli = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'packages/server/bin/emporium.js'),
      'fixtures',
      'load',
      '--file',
      file,
      '--owner',
      email,
    ],
    {
      env: { ...process.env, DATABASE_URL: connection.url, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  const cliMs = performance.now() - start;
  if (cli.status !== 0) throw new Error(`emporium fixtures load failed: ${cli.stderr || cli.stdout}`);
  log(`through the CLI: ${fmt(cliMs)} ms, process start and migrations check included`);

  const met = median <= TARGET_MS;
  log(
    `${met ? 'PASS' : 'FAIL'}: median ${fmt(median)} ms ${met ? '≤' : '>'} ${fmt(TARGET_MS)} ms for ${fmt(productCount)} products`,
  );
  await undo.finish();
  process.exit(met ? 0 : 1);
} catch (error) {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  await undo.finish();
  process.exit(1);
}
