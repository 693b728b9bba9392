import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { apiDeps, processMetrics, type ApiDeps } from './deps.ts';
import { imageHandlers, requeueLostImages } from './catalog/images/image-jobs.ts';
import { sweepOrphanImages } from './catalog/images/image-sweep.ts';
import { ChangeFeed } from './db/change-feed.ts';
import type { DatabaseHandle } from './db/database.ts';
import { serverSecret } from './db/server-secrets.ts';
import { sweepExpiredRows } from './jobs/expired-rows.ts';
import { sweepApiLog } from './api-log/retention.ts';
import { Jobs } from './jobs/queue.ts';
import type { ImageStorage } from './media/storage.ts';
import type { Clock } from './shared/clock.ts';
import { randomIds } from './shared/ids.ts';
import { newSecret } from './shared/secrets.ts';
import { loadShifts } from './sites/site-clocks.ts';
import { webhookSettings, attemptDelivery } from './webhooks/delivery.ts';
import { sweepDeliveries } from './webhooks/delivery-sweep.ts';
import { emailSettings } from './emails/email-settings.ts';
import { attemptSend } from './emails/sending.ts';

/**
 * One running Emporium on a migrated database: the HTTP app, its workers (images, webhook
 * deliveries) and its sweepers. `emporium serve` runs one for the process; the test harness
 * (harness.ts) runs several in one process, each on a database of its own.
 */
export interface Instance {
  app: FastifyInstance;
  /** The services' dependencies the app runs with, for calling services directly. */
  api: ApiDeps;
  /** The change notices the caches listen to. */
  changes: ChangeFeed;
  /** The token the test controls ask for, when they are on. */
  testControlsToken: string | undefined;
  /** Stops taking requests, lets those in flight finish, then stops the workers and the feed. */
  stop(): Promise<void>;
}

export interface InstanceOptions {
  config: Config;
  database: Pick<DatabaseHandle, 'db' | 'pool' | 'url'>;
  storage: ImageStorage;
  clock: Clock;
  /** Runs once the dependencies exist, before the app takes requests (the demo site). */
  beforeListen?: (api: ApiDeps) => Promise<void>;
  /** The log destination (a test's); standard output when unset. */
  logStream?: NodeJS.WritableStream;
}

/** A client tuned for rate limiting: a slow Redis must not hold requests up (skipOnError lets them pass). */
function rateLimitRedis(url: string): Redis {
  const redis = new Redis(url, { connectTimeout: 500, maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // reconnects by itself; the rate limiter skips while it is away
  return redis;
}

/** How long an image whose worker died waits, at most, before it is queued again (then its retry delay). */
export const LOST_IMAGES_MS = 5_000;

/** Notifications each delivery poller posts side by side. */
export const DELIVERY_BATCH = 10;

/** E-mail senders of a process with SMTP_URL: one SMTP conversation each at a time. */
export const EMAIL_WORKERS = 2;

export async function startInstance(options: InstanceOptions): Promise<Instance> {
  const { database, storage, clock } = options;
  // A token of its own each start unless one is set: printed once by `serve`, given by the harness.
  const config = {
    ...options.config,
    testControlsToken: options.config.testControls
      ? (options.config.testControlsToken ?? newSecret('emp_test_'))
      : undefined,
  };
  const deps = { db: database.db, clock, ids: randomIds };
  const redis = config.redisUrl ? rateLimitRedis(config.redisUrl) : undefined;
  const changes = new ChangeFeed(database.url);
  changes.start();
  const jobs = new Jobs(database.url, config.imageJobTimeoutSeconds);
  await jobs.start();
  const appDeps = {
    ...deps,
    pool: database.pool,
    changes,
    storage,
    jobs,
    config,
    redis,
    metrics: processMetrics({ ...deps, pool: database.pool }),
    cursorKey: await serverSecret(database.db, 'cursor'),
    csrfKey: await serverSecret(database.db, 'csrf'),
    webhooks: webhookSettings(await serverSecret(database.db, 'webhook'), config.webhookAllowPrivate),
    emails: emailSettings(config),
    logStream: options.logStream,
  };
  const api = apiDeps(appDeps);
  await loadShifts(database.db, api.clock);
  await options.beforeListen?.(api);
  const app = await buildApp(appDeps, api);
  const sweepers = [
    hourly(
      () => sweepOrphanImages(api),
      (err) => app.log.error({ err }, 'image sweep failed'),
    ),
    hourly(
      () => sweepExpiredRows(api),
      (err) => app.log.error({ err }, 'sweep of expired rows failed'),
    ),
    hourly(
      () => sweepApiLog(api),
      (err) => app.log.error({ err }, 'sweep of the request log failed'),
    ),
    hourly(
      () => sweepDeliveries(api),
      (err) => app.log.error({ err }, 'sweep of webhook deliveries failed'),
    ),
    every(
      LOST_IMAGES_MS,
      () => requeueLostImages(api),
      (err) => app.log.error({ err }, 'queuing again the images of dead workers failed'),
    ),
  ];
  const stopParts = async () => {
    sweepers.forEach(clearInterval);
    await jobs.stop(); // lets the image in hand finish; an unfinished one is handed out again
    redis?.disconnect();
    await changes.stop();
  };

  await jobs.workImages(config.imageWorkers, imageHandlers(api));
  await jobs.workDeliveries(config.webhookWorkers, DELIVERY_BATCH, (job) => attemptDelivery(api, job));
  if (api.emails.smtp) await jobs.workEmails(EMAIL_WORKERS, (job) => attemptSend(api, job));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await stopParts();
    throw error;
  }
  return {
    app,
    api,
    changes,
    testControlsToken: config.testControlsToken,
    stop: async () => {
      await app.close(); // stops accepting, lets requests in flight finish
      await stopParts();
    },
  };
}

/**
 * Runs a sweep at start and then hourly (orphaned image files, expired tokens and sessions); a
 * failed sweep is reported and simply tried again the next hour.
 */
export function hourly(sweep: () => Promise<unknown>, onError: (error: unknown) => void) {
  return every(60 * 60 * 1000, sweep, onError);
}

export function every(ms: number, sweep: () => Promise<unknown>, onError: (error: unknown) => void) {
  const run = () => void sweep().catch(onError);
  run();
  return setInterval(run, ms).unref();
}
