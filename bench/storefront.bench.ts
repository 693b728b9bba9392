/**
 * Storefront benchmark: the real service (`emporium serve`, embedded PostgreSQL) serving a
 * store's pages to autocannon. A website with `--products` (50) visible products of 3 variants
 * each, made through the API; then, each after a warm-up:
 *
 * 1. product pages, requests cycling through every product, from a returning browser (its store
 *    cookie sent, so the page is the cached one with its CSRF token put in);
 * 2. the same from first visits (no cookie: a new token and a Set-Cookie each);
 * 3. the store page's first list page (24 products).
 *
 * Target: a product page at least 1,000 requests a second on a 2-core machine.
 *
 *   npm run bench:storefront -- --duration 10
 *
 * Every process started is stopped by its pid and the temporary folder removed.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { benchOwner, benchSite, fmt, get, log, send, startFreshService, undoOnExit } from './harness.ts';
import { measure, positive, revision, verdicts, waitQuiet } from './list-runs.ts';

const { values: args } = parseArgs({
  options: {
    products: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
  strict: true,
});
const productCount = positive('products', args.products);
const settings = {
  duration: positive('duration', args.duration),
  warmup: positive('warmup', args.warmup),
  connections: positive('connections', args.connections),
};
const TARGET_RPS = 1000;
const USER_AGENT = 'emporium-bench/1.0';
/** A store cookie as a returning browser sends it: any 43 base64url characters (storefront/csrf.ts). */
const RETURNING = { cookie: `emporium_store=${'b'.repeat(43)}` };

const exit = undoOnExit((240 + 6 * (settings.warmup + settings.duration)) * 1000 + productCount * 200);

/** A product of three sizes with stock, a description and SEO text, as an app would make it. */
function productBody(storePageId: string, n: number): string {
  return JSON.stringify({
    type: 'PHYSICAL',
    storePageId,
    name: `Linen Shirt ${n}`,
    description: `<p>Breathable <strong>linen</strong>, cut loose for summer. Number ${n}.</p>`,
    isVisible: true,
    seoOptions: { title: `Linen Shirt ${n} for Summer`, description: 'A loose linen shirt.' },
    variantAttributes: ['Size'],
    variants: ['S', 'M', 'L'].map((size, i) => ({
      sku: `SHIRT-${n}-${size}`,
      attributes: { Size: size },
      pricing: { basePrice: { currency: 'USD', value: '39.00' } },
      stock: { quantity: [0, 3, 40][i] },
    })),
  });
}

try {
  log(`Emporium storefront benchmark: ${os.cpus().length} cores, node ${process.version}, ${revision()}`);
  const { port, dataDir, pid } = await startFreshService(exit, 'storefront', { IMAGE_WORKERS: '0' });
  const { websiteId, storePageId, apiKey } = await benchSite(
    await benchOwner(exit, dataDir),
    'website.products',
  );
  const headers = {
    authorization: `Bearer ${apiKey}`,
    'user-agent': USER_AGENT,
    'content-type': 'application/json',
  };
  const paths: string[] = [];
  for (let n = 1; n <= productCount; n++) {
    const res = await send(port, 'POST', '/1.1/commerce/products', headers, productBody(storePageId, n));
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.body.toString()}`);
    paths.push(new URL((JSON.parse(res.body.toString()) as { url: string }).url).pathname);
  }
  log(`  ${productCount} products on website ${websiteId}; product pages like ${paths[0]}`);
  // Each page answers as a shopper sees it before it is measured.
  const sample = await get(port, paths[0]!, RETURNING);
  if (sample.status !== 200 || !sample.body.toString().includes('Add to cart'))
    throw new Error(`product page: ${sample.status} ${sample.body.toString().slice(0, 300)}`);
  const listPath = `/s/${websiteId}/shop`;
  if ((await get(port, listPath, RETURNING)).status !== 200)
    throw new Error('the store page does not answer');

  const named = { emporium: pid };
  await waitQuiet('the runs', named);
  const returning = await measure(settings, 'product page', port, paths, RETURNING, named);
  const first = await measure(settings, 'product page, 1st visit', port, paths, {}, named);
  const list = await measure(settings, 'store page list', port, [listPath], RETURNING, named);
  log(
    `\nsettings: ${settings.connections} connections, ${settings.warmup} s warm-up, ${settings.duration} s measured`,
  );
  log(`| page | req/s | p50 ms | p99 ms |`);
  log(`|---|---:|---:|---:|`);
  for (const [label, run] of [
    ['product page (returning browser)', returning],
    ['product page (first visit)', first],
    ['store page list', list],
  ] as const) {
    log(`| ${label} | ${fmt(run.rps)} | ${run.p50} | ${run.p99} |`);
  }
  const ok = verdicts([
    [
      `a product page at least ${fmt(TARGET_RPS)} req/s`,
      returning.rps >= TARGET_RPS,
      `${fmt(returning.rps)} req/s`,
    ],
  ]);
  await exit.finish();
  process.exit(ok ? 0 : 1);
} catch (error) {
  process.stderr.write(`${(error as Error).stack}\n`);
  await exit.finish();
  process.exit(1);
}
