import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { Jobs, QUEUE_SETUP_LOCK } from '../src/jobs/queue.ts';
import { freshDatabase } from './helpers/database.ts';

test('instances starting at once on a new database all set up the job queues, none stops on a deadlock', async () => {
  // Before the queues were set up one process at a time, two of three failed nearly every round.
  for (let round = 0; round < 3; round++) {
    const url = await freshDatabase();
    const instances = [1, 2, 3].map(() => new Jobs(url));
    const started = await Promise.allSettled(instances.map((jobs) => jobs.start()));
    await Promise.all(instances.map((jobs) => jobs.stop()));
    assert.deepEqual(
      started.map((result) => (result.status === 'rejected' ? String(result.reason) : 'started')),
      ['started', 'started', 'started'],
    );
  }
});

test('an instance whose queue set-up waits on a hung process stops and says so; once that one is gone it starts', async () => {
  const url = await freshDatabase();
  const hung = new pg.Client({ connectionString: url });
  await hung.connect();
  await hung.query('SELECT pg_advisory_lock($1, 0)', [QUEUE_SETUP_LOCK]);
  const waiting = new Jobs(url, 120, 300);
  try {
    await assert.rejects(waiting.start(), /another process has been setting them up for 0.3 s/);
  } finally {
    await waiting.stop();
    await hung.end();
  }
  const next = new Jobs(url, 120, 300);
  try {
    await next.start();
  } finally {
    await next.stop();
  }
});
