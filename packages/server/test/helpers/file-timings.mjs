/**
 * A test reporter that lists each test file with its wall time, slowest first, and the total:
 * what decides how to balance the run (see test/run.ts). Use it beside the default reporter:
 *
 *   node --import tsx test/run.ts --test-reporter=spec --test-reporter-destination=stdout \
 *     --test-reporter=./test/helpers/file-timings.mjs --test-reporter-destination=timings.txt
 */
import path from 'node:path';

// JavaScript, not TypeScript: node loads reporters before `--import tsx` applies to them.
/** @param {AsyncIterable<{ type: string, data: { name: string, nesting: number, file?: string, details?: { duration_ms?: number, passed?: boolean } } }>} source */
export default async function* fileTimings(source) {
  const started = Date.now();
  /** @type {Map<string, { ms: number, failed: boolean, at: number }>} */
  const files = new Map();
  /** @type {Map<string, number>} */
  const dequeued = new Map();
  for await (const event of source) {
    if (event.type === 'test:dequeue' && event.data.name === event.data.file)
      dequeued.set(event.data.name, Date.now() - started);
    // Each file ends with a `test:complete` named after the file: its wall time, set-up included.
    if (event.type !== 'test:complete' || event.data.name !== event.data.file) continue;
    const { name, details } = event.data;
    files.set(path.relative(process.cwd(), name), {
      ms: details?.duration_ms ?? 0,
      failed: !details?.passed,
      at: dequeued.get(name) ?? 0,
    });
  }
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const seconds = (/** @type {number} */ ms) => `${(ms / 1000).toFixed(1).padStart(7)} s`;
  // When each file started tells whether a slow file that started late made the run's tail.
  for (const [file, { ms, failed, at }] of rows)
    yield `${seconds(ms)}  ${file}  (started at ${seconds(at).trim()})${failed ? '  FAILED' : ''}\n`;
  yield `${seconds(Date.now() - started)}  wall time of the run (${rows.length} files)\n`;
}
