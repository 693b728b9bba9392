import type { Redis } from 'ioredis';
import { ListCache } from './catalog/list-cache.ts';
import { productDocuments, type ProductDocuments } from './catalog/product-documents.ts';
import type { Clock, ShiftedClock } from './shared/clock.ts';
import { orderCaches, type OrderCaches } from './orders/order-caches.ts';
import { DEFAULT_ORDER_IMPORTS_PER_HOUR, DEFAULT_PRODUCT_CACHE_MB, type Config } from './config.ts';
import type { ChangeFeed } from './db/change-feed.ts';
import type { DatabaseHandle, Db } from './db/database.ts';
import type { Ids } from './shared/ids.ts';
import type { Jobs } from './jobs/queue.ts';
import { queueStats } from './jobs/queue-stats.ts';
import type { ImageStorage } from './media/storage.ts';
import { Metrics } from './metrics/metrics.ts';
import { accessTokenCache, type AccessTokenCache } from './oauth/access-tokens.ts';
import { clientCache, type ClientCache } from './oauth/client-cache.ts';
import { cursorCodec, type CursorCodec } from './pagination/cursor.ts';
import type { WebhookSettings } from './webhooks/delivery.ts';
import { siteClocks } from './sites/site-clocks.ts';
import { emailSettings, type EmailSettings } from './emails/email-settings.ts';
import { FaultRules } from './faults/fault-rules.ts';

/*
 * The dependencies of the HTTP application and of the services it calls, in a module of their
 * own: route modules and workers import them without importing the application (app.ts).
 */

export interface AppDeps {
  config: Pick<Config, 'baseUrl' | 'authUrl' | 'logLevel' | 'rateLimitPerMinute'> &
    Partial<
      Pick<
        Config,
        | 'productCacheMb'
        | 'signInPerMinute'
        | 'requestTimeoutSeconds'
        | 'trustProxy'
        | 'orderImportsPerHour'
        | 'metricsToken'
        | 'apiLog'
        | 'apiLogLinesPerSecond'
      >
    > & {
      /** The operator token of the test controls; set, they are served (TEST_CONTROLS, instance.ts). */
      testControlsToken?: string;
    };
  db: Db;
  pool: DatabaseHandle['pool'];
  /** Database change notices that let caches answer without a query; unset, every read asks. */
  changes?: ChangeFeed;
  storage: ImageStorage;
  jobs: Jobs;
  clock: Clock;
  ids: Ids;
  /** HMAC key of page cursors, shared by every instance (see db/server-secrets.ts). */
  cursorKey: Buffer;
  /** HMAC key of the owner pages' CSRF tokens, shared likewise. */
  csrfKey: Buffer;
  /** How webhook notifications are signed and sent. */
  webhooks: WebhookSettings;
  /** How the store's e-mails are sent; unset, kept only (no SMTP_URL). */
  emails?: EmailSettings;
  /** Shared rate-limit counts (REDIS_URL); unset, each instance counts alone. */
  redis?: Redis;
  /** The process's metrics (processMetrics below); unset, apiDeps makes them without Node's process metrics. */
  metrics?: Metrics;
  /** A pino destination for tests; the process's stdout otherwise. */
  logStream?: NodeJS.WritableStream;
}

/** What route modules receive: the services' dependencies, nothing HTTP-specific. */
export interface ApiDeps {
  db: Db;
  pool: DatabaseHandle['pool'];
  /** The service's clock with each website's own time (sites/site-clocks.ts). */
  clock: ShiftedClock;
  ids: Ids;
  baseUrl: string;
  cursors: CursorCodec;
  documents: ProductDocuments;
  lists: ListCache;
  storage: ImageStorage;
  jobs: Jobs;
  /** Live OAuth access tokens, so most API calls with one need no query. */
  tokens: AccessTokenCache;
  /** Registered OAuth clients, so most token requests need no query to authenticate theirs. */
  clients: ClientCache;
  webhooks: WebhookSettings;
  /** Whether and how the store's e-mails are sent over SMTP. */
  emails: EmailSettings;
  orders: OrderCaches;
  /** Orders a website may import a hour through API keys. */
  orderImportsPerHour: number;
  /** Counts and timings for /metrics. */
  metrics: Metrics;
  /** The injected fault rules of every website, kept in memory (faults/fault-rules.ts). */
  faults: FaultRules;
}

/** The services' dependencies, caches included: built once, shared by the HTTP app and the workers. */
export function apiDeps(deps: Omit<AppDeps, 'csrfKey'>): ApiDeps {
  return {
    db: deps.db,
    pool: deps.pool,
    clock: siteClocks(deps.clock, deps.db, deps.changes),
    ids: deps.ids,
    baseUrl: deps.config.baseUrl,
    cursors: cursorCodec(deps.cursorKey),
    lists: new ListCache(deps.changes),
    storage: deps.storage,
    jobs: deps.jobs,
    webhooks: deps.webhooks,
    emails: deps.emails ?? emailSettings({ smtpFrom: '' }),
    tokens: accessTokenCache(deps.changes),
    clients: clientCache(deps.changes),
    orders: orderCaches(deps.changes),
    orderImportsPerHour: deps.config.orderImportsPerHour ?? DEFAULT_ORDER_IMPORTS_PER_HOUR,
    metrics: deps.metrics ?? processMetrics(deps, false),
    faults: new FaultRules(deps.db, deps.changes),
    documents: productDocuments(
      (deps.config.productCacheMb ?? DEFAULT_PRODUCT_CACHE_MB) * 1024 * 1024,
      deps.changes,
    ),
  };
}

/** The metrics of a process on this database: its pool, the shared job queues, and with `node`, Node's own. */
export function processMetrics(deps: Pick<AppDeps, 'pool' | 'db' | 'clock'>, node = true): Metrics {
  return new Metrics({ pool: deps.pool, queues: queueStats(deps.db, deps.clock), processMetrics: node });
}
