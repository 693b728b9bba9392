/**
 * The test harness (@emporium/testing): how long `startEmporium()` takes the first time in a
 * process and each later time, and how long `reset()` takes back to a snapshot of a site of
 * `--products` products; beside it, a fresh PostgreSQL started the usual way (initdb, start,
 * create the database, migrate it), which is what a test suite without the harness pays. The
 * first start of the machine, which makes the cluster later processes copy, is timed apart.
 *
 *   npm run bench:harness -- --starts 5 --resets 5 --products 1000
 *
 * Each measurement runs in a process of its own (node, the package as an app imports it), so that
 * "first in a process" is what it says. Every instance is stopped and its folder removed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { fmt, percentile } from './harness.ts';

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    starts: { type: 'string', default: '5' },
    resets: { type: 'string', default: '5' },
    products: { type: 'string', default: '1000' },
    child: { type: 'string' },
  },
});

const TARGETS = { firstStartMs: 5000, laterStartMs: 1000, resetMs: 200 };

/** The measuring process: prints one JSON line of timings. */
async function child(kind: string): Promise<void> {
  const { startEmporium } = await import('@emporium/testing');
  if (kind === 'starts') {
    const starts: number[] = [];
    for (let i = 0; i <= Number(args.starts); i++) {
      const t = performance.now();
      const store = await startEmporium({ logLevel: 'error' });
      starts.push(performance.now() - t);
      await store.stop();
    }
    process.stdout.write(`${JSON.stringify({ first: starts[0], later: starts.slice(1) })}\n`);
    return;
  }
  if (kind === 'resets') {
    // The catalogue is made through the API, faster than the platform's 300 requests a minute.
    const store = await startEmporium({ logLevel: 'error', rateLimitPerMinute: 1_000_000 });
    const site = await store.createSite();
    await makeProducts(store.url, site.apiKey, site.storePageId, Number(args.products));
    await store.snapshot();
    const resets: number[] = [];
    for (let i = 0; i < Number(args.resets); i++) {
      await store.trigger('product.create', site.websiteId); // something for reset() to undo
      const t = performance.now();
      await store.reset();
      resets.push(performance.now() - t);
    }
    await store.stop();
    process.stdout.write(`${JSON.stringify({ resets })}\n`);
    return;
  }
  if (kind === 'fresh') {
    const { startEmbedded } = await import('../packages/server/src/db/embedded.ts');
    const { openDatabase } = await import('../packages/server/src/db/database.ts');
    const { migrateToLatest } = await import('../packages/server/src/db/migrate.ts');
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-bench-fresh-'));
    try {
      const t = performance.now();
      const server = await startEmbedded(folder, { throwaway: true });
      const handle = openDatabase(server.url, { max: 2 });
      await migrateToLatest(handle.db);
      const ms = performance.now() - t;
      await handle.close();
      await server.stop();
      process.stdout.write(`${JSON.stringify({ fresh: ms })}\n`);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }
}

/** `count` products of one variant each, 50 requests at a time, through the API. */
async function makeProducts(url: string, apiKey: string, storePageId: string, count: number) {
  for (let from = 0; from < count; from += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - from) }, async (_, i) => {
        const res = await fetch(`${url}/1.1/commerce/products`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            'user-agent': 'bench',
          },
          body: JSON.stringify({
            type: 'PHYSICAL',
            storePageId,
            name: `Product ${from + i}`,
            variants: [
              {
                sku: `B-${from + i}`,
                pricing: { basePrice: { currency: 'USD', value: '10.00' } },
                stock: { quantity: 5 },
              },
            ],
          }),
        });
        if (res.status !== 201) throw new Error(`product: ${res.status} ${await res.text()}`);
      }),
    );
  }
}

async function measure(kind: string): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', import.meta.filename, '--child', kind, ...process.argv.slice(2)],
    {
      maxBuffer: 16 * 1024 * 1024,
      timeout: 600_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

if (args.child) {
  await child(args.child);
} else {
  const fresh = (await measure('fresh')).fresh as number;
  // The first process of a machine makes the cached cluster (harness-cluster.ts); later ones copy it.
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (name.startsWith('emporium-harness-cluster-'))
      fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
  const cold = (await measure('starts')).first as number;
  const starts = await measure('starts');
  const first = starts.first as number;
  const later = starts.later as number[];
  const resets = (await measure('resets')).resets as number[];
  const laterP = [...later].sort((a, b) => a - b);
  const resetP = [...resets].sort((a, b) => a - b);
  console.log(`node ${process.version}, ${os.cpus().length} CPUs`);
  console.log('| measure | ms |');
  console.log('| --- | ---: |');
  console.log(`| fresh PostgreSQL: initdb, start, migrate | ${fmt(fresh)} |`);
  console.log(`| first startEmporium() of the machine (makes the cached cluster) | ${fmt(cold)} |`);
  console.log(`| first startEmporium() in a process | ${fmt(first)} |`);
  console.log(
    `| later startEmporium(), median / max of ${later.length} | ${fmt(percentile(laterP, 50))} / ${fmt(laterP.at(-1)!)} |`,
  );
  console.log(
    `| reset() to a ${args.products}-product snapshot, median / max of ${resets.length} | ${fmt(percentile(resetP, 50))} / ${fmt(resetP.at(-1)!)} |`,
  );
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  console.log(`${verdict(first <= TARGETS.firstStartMs)} first start within ${TARGETS.firstStartMs} ms`);
  console.log(
    `${verdict(laterP.at(-1)! <= TARGETS.laterStartMs)} every later start within ${TARGETS.laterStartMs} ms`,
  );
  console.log(`${verdict(resetP.at(-1)! <= TARGETS.resetMs)} every reset within ${TARGETS.resetMs} ms`);
}
