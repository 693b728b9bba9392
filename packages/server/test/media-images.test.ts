import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { renderWidths } from '../src/media/images.ts';

let dir: string;
let file: string;
before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-render-'));
  file = path.join(dir, 'original');
  await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3a6' } })
    .jpeg()
    .toFile(file);
});
after(() => fs.rm(dir, { recursive: true, force: true }));

test('renderWidths writes every width not wider than the original, two resizes at a time', async () => {
  const written: string[] = [];
  const result = await renderWidths(file, 'jpeg', async (name) => {
    written.push(name);
  });
  assert.deepEqual(result, { width: 1200, height: 800, widths: [100, 300, 500, 750, 1000] });
  assert.deepEqual(written.sort(), ['1000w', '100w', '300w', '500w', '750w']);
});

test("renderWidths reads the file's bytes as it reads a path (an original from object storage)", async () => {
  const written: string[] = [];
  const result = await renderWidths(await fs.readFile(file), 'jpeg', async (name, bytes) => {
    written.push(`${name} ${(await sharp(bytes).metadata()).width}`);
  });
  assert.deepEqual(result, { width: 1200, height: 800, widths: [100, 300, 500, 750, 1000] });
  assert.deepEqual(written.sort(), ['1000w 1000', '100w 100', '300w 300', '500w 500', '750w 750']);
});

test('a failed write fails the render, and no write is still running when it throws', async () => {
  let running = 0;
  const broken = new Error('disk full');
  const rendering = renderWidths(file, 'jpeg', async (name) => {
    running++;
    await new Promise((resolve) => setImmediate(resolve));
    running--;
    if (name === '300w') throw broken;
  });
  await assert.rejects(rendering, (error) => error === broken);
  assert.equal(running, 0);
});
