import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { freshDatabase } from '../helpers/database.ts';
import { multipartFile } from '../helpers/factories.ts';
import { request, startServer, type Server } from '../helpers/process.ts';

/**
 * The real process killed with SIGKILL while it resizes an image, then started again: the image
 * must read QUEUED as soon as its worker is dead, and reach READY by itself after the restart. On
 * a database of the test run's server, so no embedded server is left behind by the killed process.
 */
let env: Record<string, string>;
let dataDir: string;
let server: Server | undefined;
/** A second instance that works no images: it reads the status while no worker runs at all. */
let reader: Server | undefined;

/** Far beyond every bound of the test: what hands the job out again is the worker's death. */
const JOB_TIMEOUT_SECONDS = 600;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-crash-'));
  fs.chmodSync(dataDir, 0o755);
  env = {
    DATA_DIR: dataDir,
    DATABASE_URL: await freshDatabase(),
    IMAGE_JOB_TIMEOUT_SECONDS: String(JOB_TIMEOUT_SECONDS),
    RATE_LIMIT_PER_MINUTE: '100000', // the test asks for the status many times a second
  };
});

after(async () => {
  for (const s of [server, reader]) if (s && s.child.exitCode === null) await s.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Asks until `done` holds, at most `limitMs`: the state of another process cannot be awaited. */
async function until<T>(ask: () => Promise<T>, done: (value: T) => boolean, limitMs: number): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await ask();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a SIGKILL in the middle of processing loses nothing: the image reads QUEUED at once, then READY after a restart', async () => {
  server = await startServer(env);
  const apiKey = /API key +(emp_key_\S+)/.exec(server.stdout())?.[1];
  const storePageId = /store page ([0-9a-f]{24})/.exec(server.stdout())?.[1];
  assert.ok(apiKey && storePageId, server.stdout());
  reader = await startServer({ ...env, IMAGE_WORKERS: '0' });
  const auth = { authorization: `Bearer ${apiKey}`, 'user-agent': 'crash-test' };

  const created = await request(server.baseUrl, 'POST', '/1.1/commerce/products', auth, {
    type: 'PHYSICAL',
    storePageId,
    name: 'Crash mug',
    variants: [{ sku: 'CRASH-1', pricing: { basePrice: { currency: 'USD', value: '1.00' } } }],
  });
  assert.equal(created.status, 201, created.body);
  const productId = JSON.parse(created.body).id;

  // 20 megapixels of noise: about a second of resizing, long enough to be caught in the middle.
  const [width, height] = [5000, 4000];
  const jpeg = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .jpeg()
    .toBuffer();
  const { payload, headers } = multipartFile('file', 'noise.jpg', jpeg);
  const uploaded = await request(
    server.baseUrl,
    'POST',
    `/1.1/commerce/products/${productId}/images`,
    { ...auth, ...headers },
    payload,
  );
  assert.equal(uploaded.status, 202, uploaded.body);
  const { imageId } = JSON.parse(uploaded.body);
  const statusUrl = `/1.1/commerce/products/${productId}/images/${imageId}/status`;
  const status = async (base: string) =>
    JSON.parse((await request(base, 'GET', statusUrl, auth)).body).status;

  const first = server;
  assert.equal(
    await until(
      () => status(first.baseUrl),
      (s) => s !== 'QUEUED',
      30_000,
    ),
    'PROCESSING',
  );
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  // Within seconds, where the job's timeout would have taken ten minutes.
  const seen = reader;
  assert.equal(
    await until(
      () => status(seen.baseUrl),
      (s) => s !== 'PROCESSING',
      10_000,
    ),
    'QUEUED',
  );

  server = await startServer(env);
  const second = server;
  const final = await until(
    () => status(second.baseUrl),
    (s) => s === 'READY' || s === 'ERROR',
    60_000,
  );
  assert.equal(final, 'READY', second.stdout().slice(-3000));
  const product = JSON.parse(
    (await request(second.baseUrl, 'GET', `/1.1/commerce/products/${productId}`, auth)).body,
  ).products[0];
  assert.deepEqual(product.images[0].availableFormats, [
    '100w',
    '300w',
    '500w',
    '750w',
    '1000w',
    '1500w',
    '2500w',
  ]);
  const file = await request(second.baseUrl, 'GET', `/images/${imageId}?format=2500w`, {});
  assert.equal(file.status, 200);
  assert.equal(await second.stop(), 0);
  assert.equal(await seen.stop(), 0);
});
