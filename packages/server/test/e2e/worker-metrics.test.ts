import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { freePort } from '../../src/net.ts';
import { freshDatabase } from '../helpers/database.ts';
import { BIN } from '../helpers/process.ts';
import { TempFolders } from '../helpers/temp-folders.ts';

const folders = new TempFolders();
after(() => folders.removeAll());

const TOKEN = 'worker-metrics-token-0123456789';

test('`emporium worker` with METRICS_PORT serves its metrics there, behind METRICS_TOKEN, and stops cleanly', async () => {
  const port = await freePort();
  const child = spawn(BIN, ['worker'], {
    env: {
      ...process.env,
      DATABASE_URL: await freshDatabase(),
      DATA_DIR: folders.make('emporium-worker-metrics-'),
      HOST: '127.0.0.1',
      METRICS_PORT: String(port),
      METRICS_TOKEN: TOKEN,
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = once(child, 'exit');
  try {
    // Bounded: a worker that never says it started fails the test rather than hang it.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the worker did not start:\n${out}`)), 60_000);
      const check = () => {
        if (!out.includes('started')) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout.on('data', check);
      child.on('exit', () => reject(new Error(`the worker exited:\n${out}`)));
    });
    assert.match(out, new RegExp(`metrics on port ${port}\\n`));
    const url = `http://127.0.0.1:${port}/metrics`;
    assert.equal((await fetch(url)).status, 401);
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^emporium_job_queue_due\{queue="image\.process"\} 0$/m);
    assert.match(text, /^emporium_db_pool_connections\{state="idle"\} \d+$/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
  } finally {
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0, out);
  }
});
