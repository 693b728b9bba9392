/**
 * One autocannon run in a process of its own, so that every run starts from the same state and
 * the load generator's CPU can be told apart from the benchmark's. Prints the result as JSON.
 *
 *   node --import tsx bench/loadgen.ts '{"port":8080,"paths":["/x"],"headers":{},"seconds":15,"connections":50}'
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

export interface LoadgenInput {
  port: number;
  /** Requests cycle through these paths. */
  paths: string[];
  headers: Record<string, string>;
  seconds: number;
  connections: number;
  /**
   * Mixed in with the reads: every `every`-th request is the next of these writes instead, with
   * its own headers (a key allowed to write) and a new Idempotency-Key each when `keyed`.
   */
  writes?: {
    every: number;
    headers: Record<string, string>;
    requests: { path: string; body: string; keyed: boolean }[];
  };
}

export interface LoadgenResult {
  /** 2xx responses a second over the run. */
  rps: number;
  p50: number;
  p99: number;
  ok: number;
  failures: number;
  bytesPerSecond: number;
  /** CPU seconds this process used, start-up included. */
  cpuSeconds: number;
  /** With `writes`: the 2xx reads and writes a second, apart. */
  readsPerSecond?: number;
  writesPerSecond?: number;
  /** With `writes`: the answers that were not 2xx, by kind and status (`write 409`). */
  refused?: Record<string, number>;
}

const input = JSON.parse(process.argv[2] ?? '') as LoadgenInput;
const { writes } = input;
let next = 0;
let nextWrite = 0;
const ok = { read: 0, write: 0 };
const refused: Record<string, number> = {};
type Sent = { kind?: 'read' | 'write' };
const result = await autocannon({
  url: `http://127.0.0.1:${input.port}`,
  connections: input.connections,
  duration: input.seconds,
  headers: input.headers,
  timeout: 10,
  requests: [
    {
      setupRequest: (request, context: Sent) => {
        // A connection sends one request at a time, so its context says what its answer is for.
        if (writes && ++next % writes.every === 0) {
          const write = writes.requests[nextWrite++ % writes.requests.length]!;
          context.kind = 'write';
          const key = write.keyed ? { 'idempotency-key': randomUUID() } : {};
          return {
            ...request,
            method: 'POST',
            path: write.path,
            body: write.body,
            headers: { ...request.headers, ...writes.headers, 'content-type': 'application/json', ...key },
          };
        }
        context.kind = 'read';
        return { ...request, method: 'GET', path: input.paths[next % input.paths.length] };
      },
      onResponse: (status, _body, context: Sent) => {
        if (!context.kind) return;
        if (status >= 200 && status < 300) ok[context.kind]++;
        else refused[`${context.kind} ${status}`] = (refused[`${context.kind} ${status}`] ?? 0) + 1;
      },
    },
  ],
});
const output: LoadgenResult = {
  rps: result['2xx'] / result.duration,
  p50: result.latency.p50,
  p99: result.latency.p99,
  ok: result['2xx'],
  failures: result.non2xx + result.errors + result.timeouts,
  bytesPerSecond: result.throughput.average,
  cpuSeconds: ((used) => (used.user + used.system) / 1e6)(process.cpuUsage()),
  ...(writes && {
    readsPerSecond: ok.read / result.duration,
    writesPerSecond: ok.write / result.duration,
    refused,
  }),
};
process.stdout.write(`${JSON.stringify(output)}\n`);
