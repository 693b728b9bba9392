import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app.ts';
import { apiDeps, processMetrics, type ApiDeps } from '../../src/deps.ts';
import { imageHandlers } from '../../src/catalog/images/image-jobs.ts';
import { Jobs } from '../../src/jobs/queue.ts';
import { FileImageStorage, type ImageStorage } from '../../src/media/storage.ts';
import type { Metrics } from '../../src/metrics/metrics.ts';
import type { Clock } from '../../src/shared/clock.ts';
import { ChangeFeed } from '../../src/db/change-feed.ts';
import { openDatabase, type Db } from '../../src/db/database.ts';
import { randomIds, type Ids } from '../../src/shared/ids.ts';
import type { AccessTokenCache } from '../../src/oauth/access-tokens.ts';
import { SCOPES } from '../../src/shared/scopes.ts';
import { createApiKey } from '../../src/sites/api-keys.service.ts';
import { createOwner } from '../../src/sites/owners.service.ts';
import { createWebsite } from '../../src/sites/websites.service.ts';
import { attemptDelivery, webhookSettings, type WebhookSettings } from '../../src/webhooks/delivery.ts';
import { emailSettings, type EmailSettings } from '../../src/emails/email-settings.ts';
import { attemptSend } from '../../src/emails/sending.ts';
import { freshDatabase } from './database.ts';
import { TestS3Server } from './s3-server.ts';

export const BASE_URL = 'https://api.emporium.test';
export const AUTH_URL = 'https://login.emporium.test';

/** A clock tests move by hand; each reading is 1 ms after the last, so writes have a clear order. */
export class TestClock implements Clock {
  private time: number;
  constructor(start = Date.parse('2026-01-01T00:00:00.000Z')) {
    this.time = start;
  }
  now(): Date {
    return new Date(this.time++);
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface TestContext {
  app: FastifyInstance;
  db: Db;
  /** The services' dependencies (caches included) the app runs with, for calling them directly. */
  api: ApiDeps;
  /** The app's id generation, for calling services directly. */
  ids: Ids;
  /** The app's job queue, for calling services directly. */
  jobs: Jobs;
  /** The app's webhook settings, for calling delivery directly. */
  webhooks: WebhookSettings;
  /** The app's metrics, which services called directly with this context count in. */
  metrics: Metrics;
  /** The app's access token cache: services called with this context empty it as the app would. */
  tokens: AccessTokenCache;
  /** The app's change feed, live once started (tests wait for its events, never for time). */
  changes?: ChangeFeed;
  clock: TestClock;
  url: string;
  /** Every log line the app wrote, for tests about logging. */
  logs: string[];
  /** The first log line, written already or still to come, that `matches` accepts. */
  logged(matches: (line: string) => boolean): Promise<string>;
  site(options?: SiteOptions): Promise<Site>;
  storage: ImageStorage;
  /** Which storage the app keeps image files in. */
  storageKind: ImageStorageKind;
  /** The S3 server behind an 's3' storage, for outages. */
  s3?: TestS3Server;
  /** Resolves once a worker of this app has finished the image's job (READY or ERROR). */
  imageProcessed(imageId: string): Promise<void>;
  close(): Promise<void>;
}

export interface SiteOptions {
  scopes?: readonly string[];
  currency?: string;
  measurementStandard?: 'IMPERIAL' | 'METRIC';
}

export interface Site {
  websiteId: string;
  storePageId: string;
  apiKey: string;
  headers: Record<string, string>;
  /** app.inject with this site's credential and a User-Agent. */
  call(options: InjectOptions): Promise<LightMyRequestResponse>;
}

let sites = 0;

export type ImageStorageKind = 'folder' | 's3';

/**
 * The storages the image tests run against. EMPORIUM_TEST_STORAGE=s3 (or folder) runs them on one
 * only, e.g. while working on one of them.
 */
export const IMAGE_STORAGES: ImageStorageKind[] =
  process.env.EMPORIUM_TEST_STORAGE === 's3' || process.env.EMPORIUM_TEST_STORAGE === 'folder'
    ? [process.env.EMPORIUM_TEST_STORAGE]
    : ['folder', 's3'];

export interface TestAppOptions {
  /** Where image files go: a temporary folder (the default), or an S3 server this app starts. */
  storage?: ImageStorageKind;
  /** The S3 server to use for 's3', instead of one of its own (which close() stops). */
  s3?: TestS3Server;
  rateLimitPerMinute?: number;
  /** The owner pages' origin; an https one by default, so cookies are Secure. */
  authUrl?: string;
  /** Sign-in attempts a minute on the owner pages; high unless a test is about the limit. */
  signInPerMinute?: number;
  logLevel?: 'info' | 'warn' | 'silent';
  /** Another instance on the database of an earlier testApp; a fresh database otherwise. */
  databaseUrl?: string;
  redis?: Redis;
  /** false: no change feed, so every read asks the database. */
  changeFeed?: boolean;
  /**
   * The job queue started though no worker runs: its tables, for the notifications and e-mails a
   * test reads as queued. Any worker below starts it too; otherwise there is none.
   */
  queue?: boolean;
  /** Image workers to run in-process; 0 (the default) starts no job queue at all. */
  imageWorkers?: number;
  /** Webhook delivery pollers to run in-process; 0 (the default) delivers nothing. */
  webhookWorkers?: number;
  /** Overrides of the webhook settings; private addresses are allowed unless a test says not. */
  webhooks?: Partial<WebhookSettings>;
  /** The e-mail settings (SMTP_URL as `smtp`, retries); kept only by default. */
  emails?: Partial<EmailSettings>;
  /** E-mail senders to run in-process; 0 (the default) sends nothing. */
  emailWorkers?: number;
  /** Time a client has to send a request (the config's REQUEST_TIMEOUT_SECONDS). */
  requestTimeoutSeconds?: number;
  /** Trusted proxies (the config's TRUST_PROXY); none by default. */
  trustProxy?: string[];
  /** Order imports a website's API keys may make an hour (ORDER_IMPORTS_PER_HOUR); many by default. */
  orderImportsPerHour?: number;
  /** The bearer token /metrics asks for (METRICS_TOKEN); none by default. */
  metricsToken?: string;
  /** The test controls' token: set, the app serves them (TEST_CONTROLS); off by default. */
  testControlsToken?: string;
  /** With Node's process metrics, as `emporium serve` has them; without by default. */
  processMetrics?: boolean;
}

export async function testApp(options: TestAppOptions = {}): Promise<TestContext> {
  const url = options.databaseUrl ?? (await freshDatabase());
  const handle = openDatabase(url, { max: 5 });
  const clock = new TestClock();
  const logs: string[] = [];
  const awaited = new Set<(line: string) => void>();
  const logStream = new Writable({
    write(chunk, _enc, done) {
      // A write may hold several lines (the log's destination gathers them).
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        logs.push(`${line}\n`);
        for (const waiter of awaited) waiter(line);
      }
      done();
    },
  });
  const logged = (matches: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      const seen = logs.find(matches);
      if (seen !== undefined) return resolve(seen);
      const waiter = (line: string) => {
        if (!matches(line)) return;
        awaited.delete(waiter);
        resolve(line);
      };
      awaited.add(waiter);
    });
  const deps = { db: handle.db, clock, ids: randomIds };
  const changes = options.changeFeed === false ? undefined : new ChangeFeed(url);
  if (changes) {
    const live = once(changes, 'live');
    changes.start();
    await live;
  }
  const imagesDir = await fs.mkdtemp(path.join(os.tmpdir(), 'emporium-images-'));
  const storageKind = options.storage ?? 'folder';
  const ownS3 = storageKind === 's3' && !options.s3 ? await TestS3Server.start() : undefined;
  const s3 = options.s3 ?? ownS3;
  const storage = s3 && storageKind === 's3' ? s3.storage() : new FileImageStorage(imagesDir);
  const jobs = new Jobs(url);
  const appDeps = {
    ...deps,
    pool: handle.pool,
    changes,
    storage,
    jobs,
    config: {
      baseUrl: BASE_URL,
      authUrl: options.authUrl ?? AUTH_URL,
      logLevel: options.logLevel ?? 'info',
      rateLimitPerMinute: options.rateLimitPerMinute ?? 100_000,
      signInPerMinute: options.signInPerMinute ?? 100_000,
      requestTimeoutSeconds: options.requestTimeoutSeconds,
      trustProxy: options.trustProxy,
      orderImportsPerHour: options.orderImportsPerHour ?? 100_000,
      metricsToken: options.metricsToken,
      testControlsToken: options.testControlsToken,
    },
    cursorKey: randomBytes(32),
    csrfKey: randomBytes(32),
    webhooks: { ...webhookSettings(randomBytes(32), true), ...options.webhooks },
    emails: { ...emailSettings({ smtpFrom: 'store@example.com' }), ...options.emails },
    redis: options.redis,
    metrics: processMetrics({ db: handle.db, pool: handle.pool, clock }, options.processMetrics ?? false),
    logStream,
  };
  const api = apiDeps(appDeps);
  const app = await buildApp(appDeps, api);
  const imageWorkers = options.imageWorkers ?? 0;
  const processed = new Set<string>();
  const events = new EventEmitter();
  const webhookWorkers = options.webhookWorkers ?? 0;
  const emailWorkers = options.emailWorkers ?? 0;
  const queued = options.queue === true || imageWorkers > 0 || webhookWorkers > 0 || emailWorkers > 0;
  if (queued) await jobs.start();
  if (webhookWorkers > 0) await jobs.workDeliveries(webhookWorkers, 10, (job) => attemptDelivery(api, job));
  if (emailWorkers > 0) await jobs.workEmails(emailWorkers, (job) => attemptSend(api, job));
  if (imageWorkers > 0) {
    const handlers = imageHandlers(api);
    const done = (imageId: string) => {
      processed.add(imageId);
      events.emit('processed', imageId);
    };
    await jobs.workImages(imageWorkers, {
      process: async (data, holder) => {
        await handlers.process(data, holder);
        done(data.imageId);
      },
      failed: async (data) => {
        await handlers.failed(data);
        done(data.imageId);
      },
    });
  }
  return {
    app,
    db: handle.db,
    ids: randomIds,
    jobs,
    api,
    webhooks: api.webhooks,
    metrics: api.metrics,
    tokens: api.tokens,
    storage: api.storage,
    storageKind,
    s3,
    changes,
    clock,
    url,
    logs,
    logged,
    async site(siteOptions = {}) {
      const email = `owner${++sites}-${randomBytes(3).toString('hex')}@example.com`;
      await createOwner(deps, { email, password: 'correct horse battery' });
      const { websiteId, storePageId } = await createWebsite(deps, {
        ownerEmail: email,
        title: 'Test Store',
        currency: siteOptions.currency,
        measurementStandard: siteOptions.measurementStandard,
      });
      const { apiKey } = await createApiKey(deps, {
        websiteId,
        scopes: (siteOptions.scopes ?? SCOPES).join(','),
      });
      const headers = { authorization: `Bearer ${apiKey}`, 'user-agent': 'emporium-tests/1.0' };
      return {
        websiteId,
        storePageId,
        apiKey,
        headers,
        call: (opts) =>
          app.inject({ ...opts, headers: { ...headers, ...(opts.headers as Record<string, string>) } }),
      };
    },
    imageProcessed: (imageId) =>
      processed.has(imageId)
        ? Promise.resolve()
        : new Promise((resolve) => {
            const listener = (id: string) => {
              if (id !== imageId) return;
              events.off('processed', listener);
              resolve();
            };
            events.on('processed', listener);
          }),
    async close() {
      await app.close();
      if (queued) await jobs.stop();
      await changes?.stop();
      await fs.rm(imagesDir, { recursive: true, force: true });
      await ownS3?.close();
      await handle.close();
    },
  };
}

/** Resolves when the feed has passed on the database's notice of a change to this key. */
/**
 * The versions announced for one key from now on (a product's modifiedOn in ms), to wait for a
 * given one: an earlier notice of the same key, still on its way, does not count for it.
 */
export function versionsNoticed(feed: ChangeFeed | undefined, kind: string, key: string) {
  assert.ok(feed, 'the instance has a change feed');
  const seen = new Set<string>();
  const waiting = new Map<string, () => void>();
  const listener = (k: string, changed: string, detail: unknown) => {
    if (k !== kind || changed !== key) return;
    seen.add(String(detail));
    waiting.get(String(detail))?.();
  };
  feed.on('change', listener);
  return {
    until: (version: string) =>
      new Promise<void>((resolve) => {
        const done = () => {
          feed.off('change', listener);
          resolve();
        };
        if (seen.has(version)) done();
        else waiting.set(version, done);
      }),
  };
}

export function noticed(feed: ChangeFeed | undefined, kind: string, key: string): Promise<void> {
  assert.ok(feed, 'the instance has a change feed');
  return new Promise((resolve) => {
    const listener = (k: string, changed: string) => {
      if (k !== kind || changed !== key) return;
      feed.off('change', listener);
      resolve();
    };
    feed.on('change', listener);
  });
}

/** The ids of the images that have files in `storage`, sorted. */
export async function storedImageIds(storage: ImageStorage): Promise<string[]> {
  const ids: string[] = [];
  for await (const folder of storage.imageFolders()) ids.push(folder.imageId);
  return ids.sort();
}
