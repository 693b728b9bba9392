import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, mock, test } from 'node:test';
import { LogDestination } from '../src/http/log-destination.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-log-'));
let count = 0;

function open(): { fd: number; read: () => string } {
  const file = path.join(dir, `log-${count++}`);
  const fd = fs.openSync(file, 'w');
  return { fd, read: () => fs.readFileSync(file, 'utf8') };
}

async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const lines = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `{"msg":"line ${from + i}","text":"é ✓"}\n`);

afterEach(() => mock.restoreAll());

describe('LogDestination', () => {
  test('writes every line, in order, over several turns of the event loop', async () => {
    const { fd, read } = open();
    const destination = new LogDestination(fd);
    const written = [...lines(50), ...lines(50, 50), ...lines(1, 100)];
    for (const line of written.slice(0, 50)) destination.write(line);
    await nextTurn();
    for (const line of written.slice(50, 100)) destination.write(line);
    await nextTurn();
    destination.write(written[100]!);
    const expected = written.join('');
    await until(() => read() === expected);
  });

  test('a partial write goes on where it stopped, and a full pipe is tried again', async () => {
    const { fd, read } = open();
    const real = fs.write;
    let calls = 0;
    mock.method(fs, 'write', (...args: unknown[]) => {
      const callback = args[args.length - 1] as (error: NodeJS.ErrnoException | null, n: number) => void;
      const buffer = args[1] as Buffer;
      calls++;
      if (calls === 1) {
        // The first 10 bytes, as a pipe taking part of a write does.
        const n = fs.writeSync(fd, buffer.subarray(0, 10));
        process.nextTick(callback, null, n);
        return;
      }
      if (calls === 2) {
        process.nextTick(callback, Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' }), 0);
        return;
      }
      return (real as (...a: unknown[]) => void)(...args);
    });
    const destination = new LogDestination(fd);
    const written = lines(20);
    for (const line of written) destination.write(line);
    await until(() => read() === written.join(''));
    assert.ok(calls >= 3);
  });

  test('flushSync writes the waiting lines at once (as at exit)', () => {
    const { fd, read } = open();
    const destination = new LogDestination(fd);
    const written = lines(5);
    for (const line of written) destination.write(line);
    destination.flushSync();
    assert.equal(read(), written.join(''));
  });

  test('a closed pipe ends logging quietly', async () => {
    const { fd, read } = open();
    let calls = 0;
    mock.method(fs, 'write', (...args: unknown[]) => {
      calls++;
      const callback = args[args.length - 1] as (error: NodeJS.ErrnoException | null, n: number) => void;
      process.nextTick(callback, Object.assign(new Error('EPIPE'), { code: 'EPIPE' }), 0);
    });
    const destination = new LogDestination(fd);
    destination.write('{"msg":"lost"}\n');
    await until(() => calls === 1);
    await nextTurn();
    destination.write('{"msg":"after"}\n');
    destination.flushSync();
    await nextTurn();
    assert.equal(calls, 1);
    assert.equal(read(), '');
  });
});
