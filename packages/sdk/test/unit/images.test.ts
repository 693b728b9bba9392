import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { AbortError, Emporium, ImageProcessingError, TimeoutError } from '../../src/index.ts';
import { fileFromPath } from '../../src/node.ts';
import { defaultSleep } from '../../src/request.ts';
import {
  fakeFetch,
  hang,
  instantSleep,
  json,
  networkError,
  sequence,
  type SeenRequest,
} from '../helpers/fake-fetch.ts';

const BASE = 'https://api.example.test';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-sdk-images-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]);

function client(fetch: ReturnType<typeof fakeFetch>['fetch'], sleep = instantSleep().sleep) {
  return new Emporium({ userAgent: 'sdk-tests/1.0', baseUrl: BASE, apiKey: 'k', fetch, sleep });
}

async function uploaded(request: SeenRequest) {
  assert.ok(request.body instanceof FormData, 'multipart/form-data');
  const file = request.body.get('file');
  assert.ok(file instanceof File, 'a part named file');
  return { name: file.name, type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) };
}

describe('upload', () => {
  const sources: [string, () => unknown, string][] = [
    ['a Blob', () => new Blob([bytes]), 'image'],
    ['a File keeps its name', () => new File([bytes], 'mug.png'), 'mug.png'],
    ['a Uint8Array', () => bytes, 'image'],
    ['a Buffer', () => Buffer.from(bytes), 'image'],
    ['an ArrayBuffer', () => bytes.slice().buffer, 'image'],
    ['a path (basename)', () => path.join(dir, 'red mug.png'), 'red mug.png'],
    [
      'a Node Readable of a file (its path)',
      () => fs.createReadStream(path.join(dir, 'red mug.png')),
      'red mug.png',
    ],
    ['a Node Readable of chunks', () => Readable.from([bytes.slice(0, 3), bytes.slice(3)]), 'image'],
    ['a web ReadableStream', () => new Blob([bytes]).stream(), 'image'],
  ];
  fs.writeFileSync(path.join(dir, 'red mug.png'), bytes);
  for (const [name, source, filename] of sources) {
    test(`from ${name}`, async () => {
      const { fetch, calls } = fakeFetch(() => json(202, { imageId: 'i1' }));
      const result = await client(fetch).products.images.upload('p1', source() as never);
      assert.deepEqual(result, { imageId: 'i1' });
      assert.equal(calls[0]!.method, 'POST');
      assert.equal(calls[0]!.url.pathname, '/1.1/commerce/products/p1/images');
      assert.equal(calls[0]!.headers.get('content-type'), null, 'fetch writes the multipart boundary itself');
      const file = await uploaded(calls[0]!);
      assert.equal(file.name, filename);
      assert.deepEqual(file.bytes, bytes);
    });
  }

  test('filename and contentType options win', async () => {
    const { fetch, calls } = fakeFetch(() => json(202, { imageId: 'i1' }));
    await client(fetch).products.images.upload('p1', new File([bytes], 'x.bin'), {
      filename: 'Red Mug.png',
      contentType: 'image/png',
    });
    const file = await uploaded(calls[0]!);
    assert.equal(file.name, 'Red Mug.png');
    assert.equal(file.type, 'image/png');
  });

  test('fileFromPath (from @emporium/sdk/node) gives a named File', async () => {
    const file = await fileFromPath(path.join(dir, 'red mug.png'), 'image/png');
    assert.equal(file.name, 'red mug.png');
    assert.equal(file.type, 'image/png');
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);
  });

  test('an upload is not retried after a network error (it would add a second image)', async () => {
    const { fetch, calls } = sequence(networkError, () => json(202, { imageId: 'i1' }));
    await assert.rejects(client(fetch).products.images.upload('p1', bytes));
    assert.equal(calls.length, 1);
  });

  test('something else is refused', async () => {
    const { fetch } = fakeFetch(() => json(202, {}));
    await assert.rejects(client(fetch).products.images.upload('p1', 42 as never), TypeError);
  });
});

describe('waitUntilReady', () => {
  const statuses = (...list: string[]) =>
    sequence(...list.map((status) => () => json(200, { id: 'i1', status })));

  test('polls with doubling waits up to the cap until READY', async () => {
    const { fetch, calls } = statuses(
      'QUEUED',
      'QUEUED',
      'PROCESSING',
      'PROCESSING',
      'PROCESSING',
      'PROCESSING',
      'READY',
    );
    const { sleep, waits } = instantSleep();
    const result = await client(fetch, sleep).products.images.waitUntilReady('p1', 'i1', {
      intervalMs: 250,
      maxIntervalMs: 2_000,
    });
    assert.deepEqual(result, { id: 'i1', status: 'READY' });
    assert.deepEqual(waits, [250, 500, 1000, 2000, 2000, 2000]);
    assert.equal(calls.length, 7);
    assert.equal(calls[0]!.url.pathname, '/1.1/commerce/products/p1/images/i1/status');
  });

  test('ERROR throws ImageProcessingError', async () => {
    const { fetch } = statuses('PROCESSING', 'ERROR');
    await assert.rejects(
      client(fetch).products.images.waitUntilReady('p1', 'i1'),
      (e: unknown) => e instanceof ImageProcessingError && e.imageId === 'i1',
    );
  });

  test('past timeoutMs: TimeoutError', async () => {
    const { fetch } = statuses('QUEUED');
    await assert.rejects(
      client(fetch, (ms) => new Promise((resolve) => setTimeout(resolve, ms))).products.images.waitUntilReady(
        'p1',
        'i1',
        {
          timeoutMs: 60,
          intervalMs: 10,
        },
      ),
      (e: unknown) => e instanceof TimeoutError && /still QUEUED/.test(e.message),
    );
  });

  test('a poll that gets no answer ends at the deadline, retries included, with the same TimeoutError', async () => {
    const { fetch, calls } = fakeFetch(hang); // each attempt would be retried after its own timeout
    const started = Date.now();
    await assert.rejects(
      client(fetch).products.images.waitUntilReady('p1', 'i1', { timeoutMs: 50 }),
      (e: unknown) => e instanceof TimeoutError && /^image i1: no status after 50 ms$/.test(e.message),
    );
    assert.equal(calls.length, 1);
    assert.ok(Date.now() - started < 1_000);
  });

  test('the signal stops the waiting', async () => {
    const { fetch } = statuses('QUEUED');
    const controller = new AbortController();
    const waiting = client(fetch, defaultSleep).products.images.waitUntilReady('p1', 'i1', {
      signal: controller.signal,
      intervalMs: 10_000,
    });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(waiting, AbortError);
  });
});

describe('the other image and variant calls', () => {
  test('alt text, order, delete, and a variant image match the routes', async () => {
    const { fetch, calls } = fakeFetch((request) =>
      request.url.pathname.endsWith('/i1') && request.method === 'POST'
        ? json(200, { id: 'i1', altText: 'Red mug' })
        : new Response(null, { status: 204 }),
    );
    const emporium = client(fetch);
    assert.deepEqual(await emporium.products.images.setAltText('p1', 'i1', 'Red mug'), {
      id: 'i1',
      altText: 'Red mug',
    });
    await emporium.products.images.reorder('p1', 'i1', null);
    await emporium.products.images.reorder('p1', 'i1', 'i0');
    await emporium.products.images.delete('p1', 'i1');
    await emporium.products.variants.setImage('p1', 'v1', 'i1');
    await emporium.products.variants.delete('p1', 'v1');
    assert.deepEqual(
      calls.map((c) => [
        c.method,
        c.url.pathname,
        typeof c.body === 'string' ? JSON.parse(c.body) : undefined,
      ]),
      [
        ['POST', '/1.1/commerce/products/p1/images/i1', { altText: 'Red mug' }],
        ['POST', '/1.1/commerce/products/p1/images/i1/order', { afterImageId: null }],
        ['POST', '/1.1/commerce/products/p1/images/i1/order', { afterImageId: 'i0' }],
        ['DELETE', '/1.1/commerce/products/p1/images/i1', undefined],
        ['POST', '/1.1/commerce/products/p1/variants/v1/image', { imageId: 'i1' }],
        ['DELETE', '/1.1/commerce/products/p1/variants/v1', undefined],
      ],
    );
  });
});
