/**
 * OAuth benchmark against the real service (`emporium serve`, embedded PostgreSQL):
 *
 * 1. The refresh grant: `--connections` (20) apps at once, each refreshing its own newest refresh
 *    token one request after the other for `--duration` seconds (the rotation rule allows no
 *    other use of a refresh token): requests per second, p50 and p99.
 * 2. The product list (a full page of 50) with an OAuth access token against the same with an
 *    API key, autocannon with 50 connections, in the order key, token, token, key.
 *
 *   npm run bench:oauth -- --duration 10 --connections 20
 *
 * Every process started is stopped by its pid and the temporary folder removed, on failure and
 * on Ctrl-C too.
 */
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createClient } from '../packages/server/src/oauth/clients.service.ts';
import { issueCode } from '../packages/server/src/oauth/codes.ts';
import { TOKEN_PATH } from '../packages/server/src/oauth/token.routes.ts';
import {
  benchOwner,
  benchSite,
  fmt,
  log,
  percentile,
  runLoadgen,
  send,
  startFreshService,
  undoOnExit,
} from './harness.ts';
import type { LoadgenResult } from './loadgen.ts';

const TARGETS = { tokenShareOfKey: 0.9 };
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const REDIRECT_URI = 'https://bench.example.com/callback';
const USER_AGENT = 'emporium-bench/1.0';

const exit = undoOnExit((300 + 6 * duration) * 1000);

interface Tokens {
  access_token: string;
  refresh_token: string;
}

/** The refresh loop of one app: its newest refresh token, one request after the other. */
async function refresher(
  port: number,
  authorization: string,
  first: string,
  until: number,
  agent: http.Agent,
) {
  const latencies: number[] = [];
  let refreshToken = first;
  while (performance.now() < until) {
    const res = await send(
      port,
      'POST',
      TOKEN_PATH,
      { authorization, 'user-agent': USER_AGENT, 'content-type': 'application/json' },
      JSON.stringify({ grant_type: 'refresh_token', refresh_token: refreshToken }),
      10_000,
      agent,
    );
    if (res.status !== 200) throw new Error(`refresh: ${res.status} ${res.body.toString()}`);
    refreshToken = (JSON.parse(res.body.toString()) as Tokens).refresh_token;
    latencies.push(res.ms);
  }
  return latencies;
}

try {
  log(`Emporium OAuth benchmark: ${os.cpus().length} cores, node ${process.version}`);
  const { port, dataDir } = await startFreshService(exit, 'oauth', { IMAGE_WORKERS: '0' });

  const owner = await benchOwner(exit, dataDir);
  const { deps, email, ownerId } = owner;
  const { websiteId, storePageId, apiKey } = await benchSite(owner, 'website.products');
  const client = await createClient(deps, {
    ownerEmail: email,
    name: 'Bench App',
    redirectUris: [REDIRECT_URI],
  });
  const authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;

  /** An owner's Allow and the code's redemption, as an app would do it. */
  async function connect(): Promise<Tokens> {
    const code = await issueCode(deps, {
      clientId: client.clientId,
      websiteId,
      ownerId,
      scopes: ['website.products'],
      offline: true,
      redirectUri: REDIRECT_URI,
      codeChallenge: null,
    });
    const res = await send(
      port,
      'POST',
      TOKEN_PATH,
      { authorization, 'user-agent': USER_AGENT, 'content-type': 'application/json' },
      JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }),
    );
    if (res.status !== 200) throw new Error(`code: ${res.status} ${res.body.toString()}`);
    return JSON.parse(res.body.toString()) as Tokens;
  }

  const keyHeaders = { authorization: `Bearer ${apiKey}`, 'user-agent': USER_AGENT };
  for (let i = 0; i < 50; i++) {
    const body = JSON.stringify({
      type: 'PHYSICAL',
      storePageId,
      name: `Product ${i}`,
      isVisible: true,
      variants: [{ sku: `SKU-${i}`, pricing: { basePrice: { currency: 'USD', value: '9.00' } } }],
    });
    const res = await send(
      port,
      'POST',
      '/1.1/commerce/products',
      { ...keyHeaders, 'content-type': 'application/json' },
      body,
    );
    if (res.status !== 201) throw new Error(`create product: ${res.status} ${res.body.toString()}`);
  }

  // (1) The refresh grant.
  const apps = await Promise.all(Array.from({ length: connections }, connect));
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const warmUntil = performance.now() + 2_000;
  await Promise.all(apps.map((t) => refresher(port, authorization, t.refresh_token, warmUntil, agent)));
  const fresh = await Promise.all(Array.from({ length: connections }, connect));
  const started = performance.now();
  const runs = await Promise.all(
    fresh.map((t) => refresher(port, authorization, t.refresh_token, started + duration * 1000, agent)),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const latencies = runs.flat().sort((a, b) => a - b);
  const refreshRps = latencies.length / seconds;
  log(
    `  refresh grant, ${connections} apps at once: ${fmt(refreshRps)} req/s, p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms, ${latencies.length} refreshes, no failure`,
  );

  // (2) The product list: access token against API key.
  const accessToken = (await connect()).access_token;
  const tokenHeaders = { authorization: `Bearer ${accessToken}`, 'user-agent': USER_AGENT };
  const list = (headers: Record<string, string>, seconds = duration) =>
    runLoadgen({ port, paths: ['/1.1/commerce/products'], headers, seconds, connections: 50 });
  await list(keyHeaders, 3);
  await list(tokenHeaders, 3);
  const keyRuns: LoadgenResult[] = [];
  const tokenRuns: LoadgenResult[] = [];
  // Key, token, token, key: a drift of the machine's speed during the runs weighs on both alike.
  keyRuns.push(await list(keyHeaders));
  tokenRuns.push(await list(tokenHeaders));
  tokenRuns.push(await list(tokenHeaders));
  keyRuns.push(await list(keyHeaders));
  const mean = (runs: LoadgenResult[], key: 'rps' | 'p99') =>
    runs.reduce((a, r) => a + r[key], 0) / runs.length;
  for (const [name, runs] of [
    ['API key', keyRuns],
    ['access token', tokenRuns],
  ] as const) {
    log(
      `  list with ${name}: ${runs.map((r) => fmt(r.rps)).join(' and ')} req/s, p99 ${runs.map((r) => fmt(r.p99)).join(' and ')} ms, failures ${runs.reduce((a, r) => a + r.failures, 0)}`,
    );
  }
  const share = mean(tokenRuns, 'rps') / mean(keyRuns, 'rps');
  log(
    '\n| refresh grant req/s | p50 ms | p99 ms | list with API key req/s (p99 ms) | list with access token req/s (p99 ms) | token / key |',
  );
  log('|---:|---:|---:|---:|---:|---:|');
  log(
    `| ${fmt(refreshRps)} | ${fmt(percentile(latencies, 50), 1)} | ${fmt(percentile(latencies, 99), 1)} | ${fmt(mean(keyRuns, 'rps'))} (${fmt(mean(keyRuns, 'p99'))}) | ${fmt(mean(tokenRuns, 'rps'))} (${fmt(mean(tokenRuns, 'p99'))}) | ${fmt(share * 100)}% |`,
  );
  const ok = share >= TARGETS.tokenShareOfKey && tokenRuns.every((r) => r.failures === 0);
  log(
    `${ok ? 'PASS' : 'FAIL'}  list with an access token within 10% of the API key: ${fmt(share * 100, 1)}%`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  await exit.finish();
}
