import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Scope } from '../../src/shared/scopes.ts';
import { grantTokens, registerApp, USER_AGENT, type App } from './oauth.ts';
import type { Site, TestContext } from './test-app.ts';

export interface Received {
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  raw: Buffer;
  json: {
    id: string;
    websiteId: string;
    subscriptionId: string;
    topic: string;
    createdOn: string;
    data: object;
  };
}

/** What the receiver does with a request: answer with a status, or never answer. */
export type Answer = number | 'hang';

/**
 * A notification receiver on 127.0.0.1 (plain http, so the test app allows private addresses).
 * It answers from a script of answers, then 200; tests await the requests it got.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly server: http.Server;
  private readonly script: Answer[] = [];
  private readonly hung: http.ServerResponse[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        this.received.push({ headers: req.headers, raw, json: JSON.parse(raw.toString('utf8')) });
        const answer = this.script.shift() ?? 200;
        if (answer === 'hang') this.hung.push(res);
        else res.writeHead(answer).end();
        this.waiters = this.waiters.filter((w) => {
          if (this.received.length < w.count) return true;
          w.resolve();
          return false;
        });
      });
    });
  }

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The next requests are answered so, in order; the rest with 200. */
  answer(...answers: Answer[]): void {
    this.script.push(...answers);
  }

  /** Resolves once `count` requests in all have arrived. */
  got(count: number): Promise<Received[]> {
    if (this.received.length >= count) return Promise.resolve(this.received.slice(0, count));
    return new Promise((resolve, reject) => {
      // Bounded, so a notification that never comes fails the test instead of hanging it.
      const timer = setTimeout(
        () => reject(new Error(`the receiver got ${this.received.length} of ${count} requests`)),
        15_000,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.received.slice(0, count));
        },
      });
    });
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/** What a receiver does to check a notification: HMAC-SHA256 of the raw bytes, keyed with the hex-decoded secret. */
export function signatureOf(raw: Buffer, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'hex')).update(raw).digest('hex');
}

export function assertSigned(received: Received, secret: string): void {
  assert.equal(received.headers['squarespace-signature'], signatureOf(received.raw, secret));
}

export interface ConnectedApp {
  app: App;
  site: Site;
  accessToken: string;
  /** An API call with the app's access token. */
  call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object): Promise<LightMyRequestResponse>;
}

/** A registered app that a site owner allowed with `scopes`, holding an access token. */
export async function connectApp(
  ctx: TestContext,
  scopes: Scope[] = ['website.products', 'website.orders.read'],
  existing?: { app: App; site: Site },
): Promise<ConnectedApp> {
  const app = existing?.app ?? (await registerApp(ctx));
  const site = existing?.site ?? (await ctx.site());
  const { access_token } = await grantTokens(ctx, app, site.websiteId, { scopes });
  return {
    app,
    site,
    accessToken: access_token,
    call: (method, url, payload) =>
      ctx.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${access_token}`, 'user-agent': USER_AGENT },
        ...(payload && { payload }),
      }),
  };
}

/**
 * Asks until `done` holds: for state another worker reaches on its own (a delivery's final
 * status), which no event announces. Bounded; fails the test rather than wait forever.
 */
export async function until<T>(ask: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + 15_000;
  for (;;) {
    const value = await ask();
    if (done(value)) return value;
    if (Date.now() > end) assert.fail(`gave up waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
