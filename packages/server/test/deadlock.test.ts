import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryingDeadlocks } from '../src/db/deadlock.ts';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

test('a transaction PostgreSQL ended to break a deadlock is run again, and its result answered', async () => {
  let runs = 0;
  const result = await retryingDeadlocks(async () => {
    if (++runs < 3) throw deadlock();
    return 'done';
  });
  assert.equal(result, 'done');
  assert.equal(runs, 3);
});

test('after the last attempt the deadlock is thrown; any other error at once', async () => {
  let runs = 0;
  await assert.rejects(
    retryingDeadlocks(async () => {
      runs++;
      throw deadlock();
    }, 2),
    /deadlock detected/,
  );
  assert.equal(runs, 2);
  runs = 0;
  await assert.rejects(
    retryingDeadlocks(async () => {
      runs++;
      throw Object.assign(new Error('unique violation'), { code: '23505' });
    }),
    /unique violation/,
  );
  assert.equal(runs, 1);
});
