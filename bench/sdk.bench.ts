/**
 * SDK overhead benchmark against the real service (`emporium serve`, embedded PostgreSQL): the
 * first product list page (50 products) read one request after the other, by plain `fetch` (with
 * its JSON parsed) and by `client.products.list()` of @emporium/sdk (first page only), in
 * `--rounds` rounds of fetch, sdk, sdk, fetch, each run `--duration` seconds, so that a drift of
 * the machine's speed weighs on both alike. Reports mean, p50 and p99 per request and the SDK's
 * overhead.
 *
 *   npm run bench:sdk -- --duration 5 --rounds 3
 *
 * Every process started is stopped by its pid and the temporary folder removed, on failure and
 * on Ctrl-C too.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Emporium } from '../packages/sdk/src/index.ts';
import { benchOwner, benchSite, fmt, log, percentile, startFreshService, undoOnExit } from './harness.ts';

const TARGET_OVERHEAD = 0.05;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
  },
});
const duration = Number(args.duration);
const warmup = Number(args.warmup);
const roundCount = Number(args.rounds);
const USER_AGENT = 'emporium-bench/1.0';

const exit = undoOnExit((240 + 4 * roundCount * duration + 2 * warmup) * 1000);

/** Requests one after the other for `seconds`; the latency of each, in ms. */
async function run(seconds: number, once: () => Promise<number>): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    const count = await once();
    latencies.push(performance.now() - started);
    if (count !== 50) throw new Error(`a page of ${count} products`);
  }
  return latencies;
}

try {
  log(`Emporium SDK benchmark: ${os.cpus().length} cores, node ${process.version}`);
  const { port, dataDir } = await startFreshService(exit, 'sdk', {
    IMAGE_WORKERS: '0',
    WEBHOOK_WORKERS: '0',
  });
  const { storePageId, apiKey } = await benchSite(await benchOwner(exit, dataDir), 'website.products');

  const baseUrl = `http://127.0.0.1:${port}`;
  const client = new Emporium({ userAgent: USER_AGENT, baseUrl, apiKey });
  for (let i = 0; i < 50; i++) {
    await client.products.create({
      type: 'PHYSICAL',
      storePageId,
      name: `Product ${i}`,
      description: `<p>A product of the benchmark, number ${i}.</p>`,
      isVisible: true,
      variants: [{ sku: `SKU-${i}`, pricing: { basePrice: { currency: 'USD', value: '9.00' } } }],
    });
  }

  const url = `${baseUrl}/1.1/commerce/products`;
  const headers = { authorization: `Bearer ${apiKey}`, 'user-agent': USER_AGENT };
  const plain = async () => {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`list: ${res.status}`);
    return ((await res.json()) as { products: unknown[] }).products.length;
  };
  const sdk = async () => (await client.products.list()).products.length;
  const bytes = (await (await fetch(url, { headers })).arrayBuffer()).byteLength;
  log(
    `  the page: 50 products, ${fmt(bytes / 1024)} KB; warm-up ${warmup} s each, then ${roundCount} rounds of fetch, sdk, sdk, fetch, ${duration} s each`,
  );

  await run(warmup, plain);
  await run(warmup, sdk);
  const rounds: { name: 'fetch' | 'sdk'; latencies: number[] }[] = [];
  const order = Array.from({ length: roundCount }, () => ['fetch', 'sdk', 'sdk', 'fetch'] as const).flat();
  for (const name of order) {
    const latencies = await run(duration, name === 'fetch' ? plain : sdk);
    rounds.push({ name, latencies });
    const sorted = [...latencies].sort((a, b) => a - b);
    log(
      `  ${name.padEnd(5)} ${latencies.length} requests, mean ${fmt(sorted.reduce((a, b) => a + b, 0) / sorted.length, 3)} ms, p50 ${fmt(percentile(sorted, 50), 3)} ms, p99 ${fmt(percentile(sorted, 99), 3)} ms`,
    );
  }

  const stats = (name: 'fetch' | 'sdk') => {
    const all = rounds
      .filter((r) => r.name === name)
      .flatMap((r) => r.latencies)
      .sort((a, b) => a - b);
    return {
      requests: all.length,
      mean: all.reduce((a, b) => a + b, 0) / all.length,
      p50: percentile(all, 50),
      p99: percentile(all, 99),
    };
  };
  const f = stats('fetch');
  const s = stats('sdk');
  const overhead = s.mean / f.mean - 1;
  log('\n| client | requests | mean ms | p50 ms | p99 ms |');
  log('|---|---:|---:|---:|---:|');
  for (const [name, x] of [
    ['plain fetch', f],
    ['SDK products.list()', s],
  ] as const) {
    log(`| ${name} | ${x.requests} | ${fmt(x.mean, 3)} | ${fmt(x.p50, 3)} | ${fmt(x.p99, 3)} |`);
  }
  log(
    `\nSDK overhead: mean ${fmt(overhead * 100, 1)}%, p50 ${fmt((s.p50 / f.p50 - 1) * 100, 1)}%, p99 ${fmt((s.p99 / f.p99 - 1) * 100, 1)}%`,
  );
  const ok = overhead < TARGET_OVERHEAD;
  log(
    `${ok ? 'PASS' : 'FAIL'}  SDK overhead on the mean under ${TARGET_OVERHEAD * 100}%: ${fmt(overhead * 100, 1)}%`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  await exit.finish();
}
