import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Jobs } from '../src/jobs/queue.ts';
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
