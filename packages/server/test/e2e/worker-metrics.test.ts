import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { freePort } from '../../src/shared/net.ts';
import { freshDatabase } from '../helpers/database.ts';
import { startWorker } from '../helpers/process.ts';
import { TempFolders } from '../helpers/temp-folders.ts';

const folders = new TempFolders();
after(() => folders.removeAll());

const TOKEN = 'worker-metrics-token-0123456789';

test('`emporium worker` with METRICS_PORT serves its metrics there, behind METRICS_TOKEN, and stops cleanly', async () => {
  const port = await freePort();
  const worker = await startWorker({
    DATABASE_URL: await freshDatabase(),
    DATA_DIR: folders.make('emporium-worker-metrics-'),
    HOST: '127.0.0.1',
    METRICS_PORT: String(port),
    METRICS_TOKEN: TOKEN,
  });
  try {
    assert.match(worker.stdout(), new RegExp(`metrics on port ${port}\\n`));
    const url = `http://127.0.0.1:${port}/metrics`;
    assert.equal((await fetch(url)).status, 401);
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^emporium_job_queue_due\{queue="image\.process"\} 0$/m);
    assert.match(text, /^emporium_db_pool_connections\{state="idle"\} \d+$/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
  } finally {
    assert.equal(await worker.stop(), 0, worker.stdout());
  }
});
