/**
 * One autocannon run in a process of its own, so that every run starts from the same state and
 * the load generator's CPU can be told apart from the benchmark's. Prints the result as JSON.
 *
 *   node --import tsx bench/loadgen.ts '{"port":8080,"paths":["/x"],"headers":{},"seconds":15,"connections":50}'
 */
import autocannon from 'autocannon';

export interface LoadgenInput {
  port: number;
  /** Requests cycle through these paths. */
  paths: string[];
  headers: Record<string, string>;
  seconds: number;
  connections: number;
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
}

const input = JSON.parse(process.argv[2] ?? '') as LoadgenInput;
let next = 0;
const result = await autocannon({
  url: `http://127.0.0.1:${input.port}`,
  connections: input.connections,
  duration: input.seconds,
  headers: input.headers,
  timeout: 10,
  requests: [{ setupRequest: (request) => ({ ...request, path: input.paths[next++ % input.paths.length] }) }],
});
const output: LoadgenResult = {
  rps: result['2xx'] / result.duration,
  p50: result.latency.p50,
  p99: result.latency.p99,
  ok: result['2xx'],
  failures: result.non2xx + result.errors + result.timeouts,
  bytesPerSecond: result.throughput.average,
  cpuSeconds: ((used) => (used.user + used.system) / 1e6)(process.cpuUsage()),
};
process.stdout.write(`${JSON.stringify(output)}\n`);
