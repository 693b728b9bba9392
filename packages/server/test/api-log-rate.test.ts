import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiLog, BURST_LINES } from '../src/api-log/api-log.ts';
import { ConfigError, DEFAULT_API_LOG_LINES_PER_SECOND, loadConfig } from '../src/config.ts';
import { ShiftedClock, systemClock } from '../src/shared/clock.ts';

test('the request log keeps a burst of 2,000 lines at once, then drops and counts the next', () => {
  const log = new ApiLog({
    db: undefined as never,
    clock: new ShiftedClock(systemClock),
    linesPerSecond: 20,
  });
  const take = () => log['take'](); // what each request's hook asks
  let kept = 0;
  while (kept < BURST_LINES && take()) kept++;
  assert.equal(kept, 2000);
  // Within the same few milliseconds the rate (20 a second) has not given back a whole line.
  assert.equal(take(), false);
  assert.equal(log.dropped, 1);
});

test('API_LOG_LINES_PER_SECOND: 20 unless set, a whole number from 1 to 100,000; anything else stops start-up', () => {
  assert.equal(DEFAULT_API_LOG_LINES_PER_SECOND, 20);
  assert.equal(loadConfig({}).apiLogLinesPerSecond, 20);
  assert.equal(loadConfig({ API_LOG_LINES_PER_SECOND: '500' }).apiLogLinesPerSecond, 500);
  for (const bad of ['0', '-1', 'lots', '1.5', '100001']) {
    assert.throws(
      () => loadConfig({ API_LOG_LINES_PER_SECOND: bad }),
      (error: Error) => error instanceof ConfigError && error.message.includes('API_LOG_LINES_PER_SECOND'),
      bad,
    );
  }
});
