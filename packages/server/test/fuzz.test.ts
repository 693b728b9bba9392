/**
 * Every operation of openapi.json, sent generated requests with website A's credentials: valid
 * and broken ids, queries, headers and bodies. Whatever is sent, the answer is below 500, an
 * error is the documented body, and a success carries nothing of website B.
 *
 * Seeded: every failure message names its seed, and FUZZ_SEED=<n> replays that run. FUZZ_RUNS=<n>
 * sets the requests per operation for a deeper run.
 */
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { missingKeyProblem } from '../src/http/idempotency-key.ts';
import { operations, requestArb, type FuzzRequest, type Operation } from './helpers/fuzz/requests.ts';
import { errorBodyProblem } from './helpers/fuzz/error-body.ts';
import { fuzzWorld, type World } from './helpers/fuzz/world.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 1_313_131);
// 600 an operation: about 17,000 requests in all, about a minute on two busy cores.
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);

// Every webhook host resolves to loopback, which the app refuses to post to: nothing leaves the machine.
const loopback = ((_host, _options, callback) =>
  callback(null, [{ address: '127.0.0.1', family: 4 }] as never)) as LookupFunction;

let ctx: TestContext;
let world: World;
let bBefore: unknown;
before(async () => {
  ctx = await testApp({
    // No answer is a 429: every request reaches the code it is meant for.
    rateLimitPerMinute: 10_000_000,
    // Uploads queue their processing in the same transaction; the queue runs only with a worker.
    imageWorkers: 1,
    webhooks: { allowPrivate: false, lookup: loopback },
  });
  world = await fuzzWorld(ctx);
  bBefore = await world.snapshotOfB();
});
after(() => ctx.close());

function problemOf(op: Operation, request: FuzzRequest, res: LightMyRequestResponse): string | undefined {
  if (res.statusCode >= 500) return `status ${res.statusCode}`;
  // The token endpoint answers in RFC 6749's shape (api-details 8); the router's 405 and the API in their own.
  const oauth = op.path.startsWith('/api/1/login/oauth/') && request.method === op.method;
  if (
    res.statusCode === 400 &&
    !request.headers['idempotency-key'] &&
    res.body === JSON.stringify(missingKeyProblem(request.url))
  )
    return undefined; // the platform's RFC 7807 answer to a missing Idempotency-Key (docs/inventory.md)
  if (res.statusCode >= 400) return errorBodyProblem(oauth, res.body);
  if (res.statusCode < 300) {
    const leaked = world.needles.find((n) => res.body.includes(n) && !echoedAsNobody(op, request, res, n));
    if (leaked)
      return `carries website B's ${leaked === world.needles[0] ? 'names or SKUs' : `id or secret ${leaked}`}`;
  }
  return undefined;
}

/**
 * Transaction summaries answer each id sent, as sent (docs/analytics.md): website B's id in the
 * request comes back, and is no leak while its summary is empty, as any unknown id's is.
 */
function echoedAsNobody(
  op: Operation,
  request: FuzzRequest,
  res: LightMyRequestResponse,
  needle: string,
): boolean {
  if (op.path !== '/v1/analytics/transaction-summaries' || !String(request.payload ?? '').includes(needle))
    return false;
  const { transactionsSummaryWrappers: wrappers } = JSON.parse(res.body) as {
    transactionsSummaryWrappers: { contactId: string; transactionsSummary: { orderCount: number } }[];
  };
  return wrappers.every((w) => !w.contactId.includes(needle) || w.transactionsSummary.orderCount === 0);
}

/** What the server logged as the cause of a 5xx, found by the contextId of its body. */
function loggedCause(body: string): string {
  const contextId = /"contextId":"([^"]+)"/.exec(body)?.[1];
  if (!contextId) return '';
  for (const line of ctx.logs) {
    if (!line.includes(contextId) || !line.includes('"err"')) continue;
    const { err } = JSON.parse(line) as { err?: { type?: string; message?: string } };
    if (err) return ` [logged: ${err.type}: ${JSON.stringify(String(err.message).slice(0, 160))}]`;
  }
  return '';
}

const excerpt = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

interface Failure {
  problem: string;
  status: number | string;
  body: string;
  request: FuzzRequest;
}

/** What kind of answer a failure got, without the parts that echo the request. */
function answerKind(f: Failure): string {
  let what: string;
  try {
    const body = JSON.parse(f.body) as Record<string, unknown>;
    what = `{${Object.keys(body).join(', ')}} ${body.code ?? body.error ?? `${body.type}/${body.subtype}`}`;
  } catch {
    what = JSON.stringify(excerpt(f.body, 80));
  }
  const cause = typeof f.status === 'number' && f.status >= 500 ? loggedCause(f.body) : '';
  return `${f.status} ${f.problem}: ${what}${cause.replace(/[0-9a-f]{24}|[0-9a-f-]{36}/g, '#')}`;
}

/** Failures grouped by kind of answer, each with its first body and requests that got it in different ways. */
function report(op: Operation, seed: number, failures: Failure[]): string {
  const groups = new Map<string, Failure[]>();
  for (const f of failures) groups.set(answerKind(f), [...(groups.get(answerKind(f)) ?? []), f]);
  const how = (f: Failure) => f.request.label.replace(/^broken: (\w+);.*body \([^)]*\): (.*)$/s, '$1 $2');
  const lines = [...groups].flatMap(([kind, fs]) => [
    `  ${fs.length}× ${kind}`,
    `      first body: ${excerpt(fs[0]!.body, 200)}`,
    ...fs
      .filter((f, i) => fs.findIndex((g) => how(g) === how(f)) === i)
      .slice(0, 4)
      .map(
        (f) => `      ${f.request.method} ${excerpt(f.request.url, 160)} | ${excerpt(f.request.label, 300)}`,
      ),
  ]);
  return [
    `${op.method} ${op.path}: ${failures.length} of ${RUNS} requests broke the rule (FUZZ_SEED=${SEED}, operation seed ${seed})`,
    ...lines,
  ].join('\n');
}

/** The response, or a rejection if none comes: a request the app never answers fails, not hangs, the test. */
async function answer(response: Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const never = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 30 s')), 30_000);
  });
  try {
    return await Promise.race([response, never]);
  } finally {
    clearTimeout(timer);
  }
}

/** A seed of its own for each operation, so adding one leaves the others' requests as they were. */
function seedOf(op: Operation): number {
  let h = SEED | 0;
  for (const c of `${op.method} ${op.path}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

// The test controls act on any site by design, with the operator's token: fuzz.test-controls.test.ts.
for (const op of operations().filter((op) => op.auth !== 'operator')) {
  test(`${op.method} ${op.path}: any request gets under 500, a documented error body and nothing of another website`, async (t) => {
    const known = await world.refresh();
    const seed = seedOf(op);
    const failures: Failure[] = [];
    const statuses: Record<string, number> = {};
    ctx.logs.length = 0;
    for (const request of fc.sample(requestArb(op, known), { seed, numRuns: RUNS })) {
      const { method, url, headers, payload } = request;
      let res: LightMyRequestResponse;
      try {
        res = await answer(ctx.app.inject({ method: method as 'GET', url, headers, payload }));
      } catch (error) {
        failures.push({ problem: 'no response', status: 'none', body: String(error), request });
        continue;
      }
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      const problem = problemOf(op, request, res);
      if (problem) failures.push({ problem, status: res.statusCode, body: res.body, request });
    }
    // How deep the requests got: a fuzzer that only ever hears 400 tests little.
    t.diagnostic(`statuses: ${JSON.stringify(statuses)}`);
    const message = failures.length ? report(op, seed, failures) : '';
    ctx.logs.length = 0;
    assert.equal(failures.length, 0, message);
  });
}

test("website B's products, inventory and subscriptions are as they were before the fuzzing", async () => {
  assert.deepEqual(await world.snapshotOfB(), bBefore);
});
