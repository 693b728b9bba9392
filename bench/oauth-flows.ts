/**
 * The two other round trips of a token's life, beside the refresh grant (oauth.bench.ts): the
 * code exchange, and the first API call with a refreshed pair's access token, which confirms the
 * pair (api-details 8). Each is one call of a database function (oauth_redeem_code,
 * oauth_authenticate, which confirms); this measures what that costs end to end.
 *
 * `count` codes are issued before the clock starts (as owners' Allows would), then exchanged by
 * `connections` clients at once. Each pair is then refreshed once, outside the measured path, and
 * the first call with each new access token is measured, then a second call with the same tokens,
 * which the token cache answers without the database: the difference is the confirmation.
 */
import http from 'node:http';
import { cpuMeter, fmt, log, percentile, send, type CpuShare } from './harness.ts';
import { cpuLine } from './list-runs.ts';

export interface FlowRun {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  count: number;
  /** CPU milliseconds a request, of the server's process and of PostgreSQL's. */
  serverCpuMs: number;
  postgresCpuMs: number;
  cpu: CpuShare;
}

interface FlowOptions {
  port: number;
  pid: number;
  connections: number;
  count: number;
  tokenPath: string;
  userAgent: string;
  redirectUri: string;
  /** `Authorization: Basic` of the app. */
  authorization: string;
  /** A new code of the app, as an owner's Allow makes it. */
  issue(): Promise<string>;
  /** A call with an access token, which its first use confirms. */
  callPath: string;
}

/** `connections` clients at once, each sending the next item's request until none is left. */
async function measure(
  name: string,
  options: FlowOptions,
  items: string[],
  request: (item: string, agent: http.Agent) => Promise<{ status: number; body: Buffer; ms: number }>,
): Promise<{ run: FlowRun; bodies: Buffer[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const bodies: Buffer[] = new Array(items.length);
  const latencies: number[] = [];
  let next = 0;
  const cpu = cpuMeter({ server: options.pid });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (next < items.length) {
        const i = next++;
        const res = await request(items[i]!, agent);
        if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.body.toString()}`);
        bodies[i] = res.body;
        latencies.push(res.ms);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = cpu();
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const perRequest = (cores: number | undefined) => ((cores ?? 0) * seconds * 1000) / items.length;
  const run: FlowRun = {
    name,
    rps: items.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count: items.length,
    serverCpuMs: perRequest(used.groups.server),
    postgresCpuMs: perRequest(used.groups.postgres),
    cpu: used,
  };
  log(
    `  ${name}: ${fmt(run.rps)} req/s, p50 ${fmt(run.p50, 1)} ms, p99 ${fmt(run.p99, 1)} ms, ${run.count} requests, no failure; cpu: ${cpuLine(used)}`,
  );
  return { run, bodies };
}

/** The code exchange, then the first and the second call with refreshed pairs' access tokens. */
export async function measureFlows(options: FlowOptions): Promise<FlowRun[]> {
  const tokenHeaders = {
    authorization: options.authorization,
    'user-agent': options.userAgent,
    'content-type': 'application/json',
  };
  const codes: string[] = [];
  for (let i = 0; i < options.count; i++) codes.push(await options.issue());
  const exchange = await measure('code exchange', options, codes, (code, agent) =>
    send(
      options.port,
      'POST',
      options.tokenPath,
      tokenHeaders,
      JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: options.redirectUri }),
      10_000,
      agent,
    ),
  );

  // Outside the measured path: a refresh of each pair, whose new access token awaits confirmation.
  const refreshTokens = exchange.bodies.map(
    (b) => (JSON.parse(b.toString()) as { refresh_token: string }).refresh_token,
  );
  const refreshed = await measure('(set-up) one refresh each', options, refreshTokens, (token, agent) =>
    send(
      options.port,
      'POST',
      options.tokenPath,
      tokenHeaders,
      JSON.stringify({ grant_type: 'refresh_token', refresh_token: token }),
      10_000,
      agent,
    ),
  );
  const accessTokens = refreshed.bodies.map(
    (b) => (JSON.parse(b.toString()) as { access_token: string }).access_token,
  );
  const call = (token: string, agent: http.Agent) =>
    send(
      options.port,
      'GET',
      options.callPath,
      { authorization: `Bearer ${token}`, 'user-agent': options.userAgent },
      undefined,
      10_000,
      agent,
    );
  const first = await measure(
    'first call with a refreshed token (confirms its pair)',
    options,
    accessTokens,
    call,
  );
  const second = await measure('second call with the same token', options, accessTokens, call);
  return [exchange.run, first.run, second.run];
}

/** The table of the runs, as bench/README.md shows it. */
export function logFlows(runs: FlowRun[]): void {
  log('\n| round trip | req/s | p50 ms | p99 ms | server CPU ms/request | PostgreSQL CPU ms/request |');
  log('|---|---:|---:|---:|---:|---:|');
  for (const r of runs) {
    log(
      `| ${r.name} | ${fmt(r.rps)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.serverCpuMs, 2)} | ${fmt(r.postgresCpuMs, 2)} |`,
    );
  }
}
