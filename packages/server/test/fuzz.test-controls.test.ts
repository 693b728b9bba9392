/**
 * The test controls of openapi.json (tag "Test controls"), sent generated requests with the
 * operator's token, and broken ones without it: valid and broken ids, topics, durations,
 * fixtures. Whatever is sent, the answer is below 500 and an error is the documented body. The
 * controls act on any site by design, so there is no other website's data to keep out of sight
 * (fuzz.test.ts keeps it for the API). Seeded as fuzz.test.ts is: FUZZ_SEED and FUZZ_RUNS.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { errorBodyProblem } from './helpers/fuzz/error-body.ts';
import { operations, requestArb } from './helpers/fuzz/requests.ts';
import { fuzzWorld, type World } from './helpers/fuzz/world.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 1_313_131);
// Fewer than the API's 600: a successful fixture load or trigger writes a whole site or order.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const TOKEN = 'emp_test_fuzzing-the-test-controls';

let ctx: TestContext;
let world: World;
before(async () => {
  ctx = await testApp({ testControlsToken: TOKEN, imageWorkers: 1, rateLimitPerMinute: 10_000_000 });
  world = await fuzzWorld(ctx);
});
after(() => ctx.close());

const controls = operations().filter((op) => op.auth === 'operator');

test('openapi.json documents the test controls', () => {
  assert.deepEqual(controls.map((op) => `${op.method} ${op.path}`).sort(), [
    'DELETE /_emporium/websites/{websiteId}/faults',
    'DELETE /_emporium/websites/{websiteId}/faults/{faultId}',
    'GET /_emporium/websites/{websiteId}/clock',
    'GET /_emporium/websites/{websiteId}/emails',
    'GET /_emporium/websites/{websiteId}/faults',
    'GET /_emporium/websites/{websiteId}/fixture',
    'GET /_emporium/websites/{websiteId}/requests',
    'GET /_emporium/websites/{websiteId}/requests/{requestId}',
    'POST /_emporium/fixtures',
    'POST /_emporium/websites/{websiteId}/clock/advance',
    'POST /_emporium/websites/{websiteId}/faults',
    'POST /_emporium/websites/{websiteId}/triggers/{topic}',
  ]);
});

for (const op of controls) {
  test(`${op.method} ${op.path}: any request gets under 500 and a documented error body`, async (t) => {
    const known = { ...(await world.refresh()), operator: [`Bearer ${TOKEN}`] };
    let seed = SEED | 0;
    for (const c of `${op.method} ${op.path}`) seed = (Math.imul(seed, 31) + c.charCodeAt(0)) | 0;
    const statuses: Record<string, number> = {};
    const failures: string[] = [];
    for (const request of fc.sample(requestArb(op, known), { seed, numRuns: RUNS })) {
      const { method, url, headers, payload } = request;
      const res = await ctx.app.inject({ method: method as 'GET', url, headers, payload });
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      const problem =
        res.statusCode >= 500
          ? `status ${res.statusCode}`
          : res.statusCode >= 400
            ? errorBodyProblem(false, res.body)
            : undefined;
      if (problem)
        failures.push(
          `${problem}: ${method} ${url.slice(0, 160)} | ${request.label.slice(0, 200)} -> ${res.body.slice(0, 200)}`,
        );
    }
    t.diagnostic(`statuses: ${JSON.stringify(statuses)}`);
    assert.equal(
      failures.length,
      0,
      `FUZZ_SEED=${SEED}, operation seed ${seed}\n${failures.slice(0, 8).join('\n')}`,
    );
  });
}
