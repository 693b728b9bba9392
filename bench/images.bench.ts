/**
 * Image pipeline benchmark: the real service (`emporium serve`) processing uploaded 4000x3000
 * JPEGs into every width, against a baseline in the same run: this process making the very same
 * resizes with sharp directly. See bench/README.md.
 *
 *   npm run bench:images -- --workers 1,2 --images 24 --latency 50 --duration 10
 *
 * For each IMAGE_WORKERS value: a new DATA_DIR (embedded PostgreSQL), the service started, a
 * website with a write key, then (1) `--images` uploads one after the other and the time until
 * all are READY, (2) `--latency` uploads one after the other, each one's time from its 202 to
 * READY, with autocannon on the product list meanwhile (the API must not starve), and (3)
 * autocannon on one image's 500w file. Every process started is stopped by its pid; the
 * temporary folders are removed, on failure and on Ctrl-C too.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import sharp from 'sharp';
import { WIDTHS } from '../packages/server/src/media/images.ts';
import {
  benchOwner,
  benchSite,
  cpuMeter,
  fmt,
  log,
  percentile,
  runLoadgen,
  startFreshService,
  undoOnExit,
} from './harness.ts';
import type { LoadgenResult } from './loadgen.ts';

const TARGETS = { pipelineShare: 0.8, listP99Ms: 100 };

const { values: args } = parseArgs({
  options: {
    workers: { type: 'string', default: '1,2' },
    images: { type: 'string', default: '24' },
    latency: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
  },
});
const workerCounts = args.workers!.split(',').map(Number);
const throughputImages = Number(args.images);
const latencyImages = Number(args.latency);
const duration = Number(args.duration);

const exit = undoOnExit(workerCounts.length * (300 + 3 * duration) * 1000);

/** A photo-like 4000x3000 JPEG: smooth gradients with noise, about 2 MB. */
async function fixture(): Promise<Buffer> {
  const [width, height] = [4000, 3000];
  const noise = { type: 'gaussian' as const, mean: 128, sigma: 40 };
  return sharp({ create: { width, height, channels: 3, background: '#808080', noise } })
    .blur(3)
    .jpeg({ quality: 85 })
    .toBuffer();
}

/**
 * The service's resizes, made directly with the same sharp calls: every width straight from the
 * JPEG (which decodes at a fraction of its size), largest first, `lanes` widths at a time (1: the
 * plain script of the target; 2: as the service schedules them).
 */
async function baselineRender(jpeg: Buffer, lanes: number): Promise<void> {
  const { autoOrient } = await sharp(jpeg).metadata();
  const queue = WIDTHS.filter((w) => w <= autoOrient.width).reverse();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let width = queue.shift(); width !== undefined; width = queue.shift()) {
        await sharp(jpeg).rotate().resize({ width }).jpeg().toBuffer();
      }
    }),
  );
}

/**
 * Images a second, and CPU milliseconds an image (this process, all its threads), of `count`
 * renders with `concurrency` at a time.
 */
async function baseline(
  jpeg: Buffer,
  count: number,
  concurrency: number,
  lanes = 1,
): Promise<{ rate: number; cpuMs: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) await baselineRender(jpeg, lanes);
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    rate: count / ((performance.now() - started) / 1000),
    cpuMs: (used.user + used.system) / 1000 / count,
  };
}

function send(
  port: number,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers }, (res) => {
      let data = '';
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Service {
  port: number;
  headers: Record<string, string>;
  storePageId: string;
  db: pg.Client;
}

async function createProduct(service: Service, name: string): Promise<string> {
  const body = JSON.stringify({
    type: 'PHYSICAL',
    storePageId: service.storePageId,
    name,
    isVisible: true,
    variants: [
      {
        sku: `IMG-${randomBytes(6).toString('hex')}`,
        pricing: { basePrice: { currency: 'USD', value: '9.00' } },
      },
    ],
  });
  const res = await send(
    service.port,
    'POST',
    '/1.1/commerce/products',
    { ...service.headers, 'content-type': 'application/json' },
    Buffer.from(body),
  );
  if (res.status !== 201) throw new Error(`create product: ${res.status} ${res.body}`);
  return JSON.parse(res.body).id;
}

async function upload(service: Service, productId: string, jpeg: Buffer): Promise<string> {
  const boundary = `----bench${randomBytes(6).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\n\r\n`),
    jpeg,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await send(
    service.port,
    'POST',
    `/1.1/commerce/products/${productId}/images`,
    { ...service.headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  );
  if (res.status !== 202) throw new Error(`upload: ${res.status} ${res.body}`);
  return JSON.parse(res.body).imageId;
}

/**
 * When each image was first seen READY (or ERROR: then the run fails). The service announces a
 * finished image as a change of its product (NOTIFY emporium_changes, from
 * db/functions/emporium_product_changed.sql), so the database is read on each notice, and every
 * 250 ms in case one is missed: polling every few milliseconds instead took a fifth of a core from
 * the service being measured.
 */
async function readyTimes(db: pg.Client, ids: string[], limitMs: number): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  const until = Date.now() + limitMs;
  let notices = 0;
  let wake = () => {};
  const onNotice = () => {
    notices++;
    wake();
  };
  db.on('notification', onNotice);
  await db.query('LISTEN emporium_changes');
  try {
    while (seen.size < ids.length) {
      if (Date.now() > until)
        throw new Error(`${ids.length - seen.size} images not READY after ${limitMs} ms`);
      const noticesBefore = notices;
      const { rows } = await db.query<{ id: string; status: string }>(
        `SELECT id, status FROM images WHERE id = ANY($1) AND status IN ('READY', 'ERROR')`,
        [ids.filter((id) => !seen.has(id))],
      );
      const now = performance.now();
      for (const row of rows) {
        if (row.status === 'ERROR') throw new Error(`image ${row.id} ended in ERROR`);
        seen.set(row.id, now);
      }
      if (notices === noticesBefore && seen.size < ids.length) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 250);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  } finally {
    db.off('notification', onNotice);
    await db.query('UNLISTEN emporium_changes');
  }
  return seen;
}

interface Result {
  workers: number;
  baseline: number;
  /** The baseline with two widths of an image at a time, as the service resizes them. */
  baselineTwoLanes: number;
  pipeline: number;
  /** CPU milliseconds an image: the baseline's process, and the service's (PostgreSQL apart). */
  baselineCpuMs: number;
  serviceCpuMs: number;
  latencyP50: number;
  latencyP99: number;
  list: LoadgenResult;
  serve500: LoadgenResult;
}

async function runWorkers(workers: number, jpeg: Buffer): Promise<Result> {
  log(`\n== IMAGE_WORKERS=${workers} ==`);
  const base = await baseline(jpeg, throughputImages, workers);
  log(
    `  baseline (sharp directly, ${workers} at a time): ${fmt(base.rate, 2)} images/s, ${fmt(base.cpuMs)} CPU ms an image`,
  );
  const baseTwoLanes = await baseline(jpeg, throughputImages, workers, 2);
  log(
    `  the same with two widths of an image at a time, as the service: ${fmt(baseTwoLanes.rate, 2)} images/s`,
  );

  const { port, dataDir, pid } = await startFreshService(exit, 'images', {
    LOG_LEVEL: 'warn',
    IMAGE_WORKERS: String(workers),
  });

  const owner = await benchOwner(exit, dataDir);
  const { storePageId, apiKey } = await benchSite(owner, 'website.products');
  const db = new pg.Client({ connectionString: owner.databaseUrl });
  await db.connect();
  exit.add(() => db.end());
  const service: Service = {
    port,
    storePageId,
    db,
    headers: { authorization: `Bearer ${apiKey}`, 'user-agent': 'emporium-bench/1.0' },
  };
  for (let i = 0; i < 50; i++) await createProduct(service, `Listed product ${i}`); // a full list page

  // (1) Throughput: uploads one after the other, until the last is READY.
  const first = await createProduct(service, 'Throughput');
  const cpu = cpuMeter({ emporium: pid });
  const started = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < throughputImages; i++) ids.push(await upload(service, first, jpeg));
  const done = await readyTimes(db, ids, 600_000);
  const seconds = (Math.max(...done.values()) - started) / 1000;
  const pipeline = throughputImages / seconds;
  const serviceCpuMs = (1000 * (cpu().groups.emporium ?? 0) * seconds) / throughputImages;
  log(
    `  service: ${throughputImages} uploads READY at ${fmt(pipeline, 2)} images/s (${fmt((100 * pipeline) / base.rate)}% of the baseline), ${fmt(serviceCpuMs)} CPU ms an image`,
  );

  // (2) Latency from 202 to READY, with the list under load meanwhile.
  const second = await createProduct(service, 'Latency');
  const list = runLoadgen({
    port,
    paths: ['/1.1/commerce/products'],
    headers: service.headers,
    seconds: duration,
    connections: 10,
  });
  const uploadedAt = new Map<string, number>();
  for (let i = 0; i < latencyImages; i++)
    uploadedAt.set(await upload(service, second, jpeg), performance.now());
  const readyAt = await readyTimes(db, [...uploadedAt.keys()], 900_000);
  const latencies = [...uploadedAt].map(([id, at]) => readyAt.get(id)! - at).sort((a, b) => a - b);
  const listRun = await list;
  log(
    `  ${latencyImages} uploads, 202 to READY: p50 ${fmt(percentile(latencies, 50))} ms, p99 ${fmt(percentile(latencies, 99))} ms;` +
      ` list meanwhile (10 connections): ${fmt(listRun.rps)} req/s, p99 ${fmt(listRun.p99)} ms`,
  );

  // (3) Serving one 500w file.
  const serve500 = await runLoadgen({
    port,
    paths: [`/images/${ids[0]}?format=500w`],
    headers: {},
    seconds: duration,
    connections: 50,
  });
  log(`  GET a 500w file (50 connections): ${fmt(serve500.rps)} req/s, p99 ${fmt(serve500.p99)} ms`);

  await exit.undo();
  return {
    workers,
    baseline: base.rate,
    baselineTwoLanes: baseTwoLanes.rate,
    pipeline,
    baselineCpuMs: base.cpuMs,
    serviceCpuMs,
    latencyP50: percentile(latencies, 50),
    latencyP99: percentile(latencies, 99),
    list: listRun,
    serve500,
  };
}

try {
  const jpeg = await fixture();
  const meta = await sharp(jpeg).metadata();
  log(
    `Emporium image benchmark: a ${meta.width}x${meta.height} JPEG of ${fmt(jpeg.length / 1024)} KB; ${os.cpus().length} cores, node ${process.version}`,
  );
  const results: Result[] = [];
  for (const workers of workerCounts) results.push(await runWorkers(workers, jpeg));
  log(
    '\n| IMAGE_WORKERS | baseline images/s | Emporium images/s | share | share of the baseline with two widths at a time | CPU ms an image, baseline / service | 202 to READY p50 / p99 ms | list p99 ms meanwhile | 500w file req/s, p99 ms |',
  );
  log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    log(
      `| ${r.workers} | ${fmt(r.baseline, 2)} | ${fmt(r.pipeline, 2)} | ${fmt((100 * r.pipeline) / r.baseline)}% | ${fmt((100 * r.pipeline) / r.baselineTwoLanes)}% | ${fmt(r.baselineCpuMs)} / ${fmt(r.serviceCpuMs)} | ${fmt(r.latencyP50)} / ${fmt(r.latencyP99)} | ${fmt(r.list.p99)} | ${fmt(r.serve500.rps)}, ${fmt(r.serve500.p99)} |`,
    );
  }
  let failed = false;
  for (const r of results) {
    const share = r.pipeline / r.baseline;
    const ok = share >= TARGETS.pipelineShare;
    failed ||= !ok;
    log(
      `${ok ? 'PASS' : 'FAIL'}  pipeline >= ${TARGETS.pipelineShare * 100}% of the baseline, IMAGE_WORKERS=${r.workers}: ${fmt(share * 100, 1)}%`,
    );
    const listOk = r.list.p99 < TARGETS.listP99Ms;
    failed ||= !listOk;
    log(
      `${listOk ? 'PASS' : 'FAIL'}  list p99 < ${TARGETS.listP99Ms} ms while processing, IMAGE_WORKERS=${r.workers}: ${fmt(r.list.p99)} ms`,
    );
  }
  process.exitCode = failed ? 1 : 0;
} finally {
  await exit.finish();
}
