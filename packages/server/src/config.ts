import net from 'node:net';
import path from 'node:path';
import type { S3Settings } from './media/s3-storage.ts';
import { isEmail } from './shared/email.ts';

/** Every environment variable the service reads, parsed and typed in one place. */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  authUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  rateLimitPerMinute: number;
  /** Orders a website may import a hour through API keys (platform-surface 2.1.3: 100). */
  orderImportsPerHour: number;
  /** Sign-in, sign-up and consent posts a client address may make a minute on the owner pages. */
  signInPerMinute: number;
  /** Where instances share rate-limit counts; unset: each instance counts alone. */
  redisUrl: string | undefined;
  /** Memory for rendered product documents (catalog/product-documents.ts), in MiB. */
  productCacheMb: number;
  /** Image jobs processed at once by this process; 0: none (another process runs `emporium worker`). */
  imageWorkers: number;
  /** How long an image job may run before it is taken as lost (its worker died) and handed out again. */
  imageJobTimeoutSeconds: number;
  /** Notifications may go to private addresses and plain http (local development and tests only). */
  webhookAllowPrivate: boolean;
  /** Webhook delivery pollers in this process, each posting up to 10 notifications side by side. */
  webhookWorkers: number;
  demoSite: boolean;
  /** Time a client has to send a whole request, headers and body (slow clients get a 408). */
  requestTimeoutSeconds: number;
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For gives the client's address. */
  trustProxy: string[];
  /** Where image files live: the folder DATA_DIR/images, or an S3 bucket (IMAGE_STORAGE_URL). */
  imageStorage: { kind: 'folder' } | ({ kind: 's3' } & S3Settings);
  /** The bearer token /metrics asks for; unset: /metrics is open to whoever reaches the port. */
  metricsToken: string | undefined;
  /** Where `emporium worker` serves /metrics; unset: the worker has no listener. */
  metricsPort: number | undefined;
  /**
   * The SMTP server the store's e-mails (emails/) are also sent through: smtp:// or smtps://,
   * with user and password in the URL when it asks for them. Unset: they are kept only (NOT_SENT).
   */
  smtpUrl: string | undefined;
  /** The sender's address of those e-mails; the store's name is shown as its name. */
  smtpFrom: string;
  /**
   * The test controls over HTTP (/_emporium/: site clocks, triggers, fixtures; docs/testing-your-app.md):
   * on by default with the embedded database only, which is for development and tests.
   */
  testControls: boolean;
  /** The bearer token the test controls ask for; unset: a new one at each start, printed once. */
  testControlsToken: string | undefined;
  /** Each site's request log (api-log/); on unless API_LOG=false (a benchmark's comparison). */
  apiLog: boolean;
  /** Request log lines an instance keeps a second after its burst (API_LOG_LINES_PER_SECOND). */
  apiLogLinesPerSecond: number;
}

export class ConfigError extends Error {}

/** The sender of the store's e-mails unless SMTP_FROM says: a reserved domain (RFC 2606) that no one receives at. */
export const DEFAULT_SMTP_FROM = 'store@emporium.invalid';

/** Enough for the hot set of a large catalog; a whole-catalog sync must stay within the RSS budget. */
export const DEFAULT_PRODUCT_CACHE_MB = 32;

/** The platform's own limit on order imports with an API key. */
export const DEFAULT_ORDER_IMPORTS_PER_HOUR = 100;
/**
 * Request log lines an instance keeps a second after its burst (api-log/api-log.ts): under a
 * load, what the log costs (its CPU and its database's) stays within 5% of a core
 * (bench/README.md, "The request log").
 */
export const DEFAULT_API_LOG_LINES_PER_SECOND = 20;

/** Enough for a person who mistypes; far too few to guess a password. */
export const DEFAULT_SIGN_IN_PER_MINUTE = 10;

/** Enough for a 20 MB upload at about 3 Mbit/s; far too long for a stalling client to matter. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 60;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function bearerToken(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const token = env[name] || undefined;
  if (token && !/^[\x21-\x7e]{16,}$/.test(token)) {
    // A bearer token is sent as one header word; a short one could be guessed.
    throw new ConfigError(`${name} must be at least 16 printable characters without spaces`);
  }
  return token;
}

function origin(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  // Absolute URLs are built by appending paths, so keep no trailing slash.
  return raw.replace(/\/+$/, '');
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** proxy-addr's names for whole ranges, which Fastify's trustProxy takes beside addresses. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function proxyList(env: NodeJS.ProcessEnv, name: string): string[] {
  const items = (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of items) {
    const [address, prefix, extra] = item.split('/');
    const version = net.isIP(address ?? '');
    const maxPrefix = version === 4 ? 32 : 128;
    const validPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (PROXY_RANGE_NAMES.includes(item)) continue;
    if (!version || !validPrefix || extra !== undefined) {
      throw new ConfigError(
        `${name} must list IP addresses or CIDR ranges (or ${PROXY_RANGE_NAMES.join(', ')}), comma-separated; "${item}" is none`,
      );
    }
  }
  return items;
}

/** S3's rule for bucket names (3 to 63 lowercase letters, digits, dots and hyphens). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const S3_SETTINGS = ['IMAGE_STORAGE_ENDPOINT', 'IMAGE_STORAGE_REGION', 'IMAGE_STORAGE_FORCE_PATH_STYLE'];

function imageStorage(env: NodeJS.ProcessEnv): Config['imageStorage'] {
  const raw = env.IMAGE_STORAGE_URL;
  if (!raw) {
    const stray = S3_SETTINGS.find((name) => env[name]);
    if (stray) throw new ConfigError(`${stray} is set but IMAGE_STORAGE_URL is not`);
    return { kind: 'folder' };
  }
  const match = /^s3:\/\/([^/]+)(\/.*)?$/.exec(raw);
  if (!match || !BUCKET.test(match[1]!)) {
    throw new ConfigError(`IMAGE_STORAGE_URL must be s3://bucket or s3://bucket/prefix, got "${raw}"`);
  }
  const folders = (match[2] ?? '').split('/').filter(Boolean);
  if (folders.some((folder) => folder === '.' || folder === '..')) {
    throw new ConfigError(`IMAGE_STORAGE_URL: the prefix may not hold . or .. folders, got "${raw}"`);
  }
  const endpoint = env.IMAGE_STORAGE_ENDPOINT ? origin(env, 'IMAGE_STORAGE_ENDPOINT', '') : undefined;
  // A store of one's own (MinIO) needs no region; AWS needs one to sign with.
  const region = env.IMAGE_STORAGE_REGION || env.AWS_REGION || undefined;
  if (!region && !endpoint) {
    throw new ConfigError('IMAGE_STORAGE_URL on AWS needs IMAGE_STORAGE_REGION (or AWS_REGION)');
  }
  return {
    kind: 's3',
    bucket: match[1]!,
    prefix: folders.map((folder) => `${folder}/`).join(''),
    endpoint,
    region,
    forcePathStyle: boolean(env, 'IMAGE_STORAGE_FORCE_PATH_STYLE', false),
  };
}

function smtpUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SMTP_URL || undefined;
  if (!raw) return undefined;
  const message = 'SMTP_URL must be smtp://[user:password@]host[:port] or smtps://...';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(message);
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    // The URL is not echoed: it may hold a password.
    throw new ConfigError(message);
  }
  if (url.pathname.replace(/^\/$/, '') || url.search || url.hash) {
    throw new ConfigError(`${message}, without a path or query`);
  }
  return raw;
}

function smtpFrom(env: NodeJS.ProcessEnv): string {
  const raw = env.SMTP_FROM || DEFAULT_SMTP_FROM;
  if (!isEmail(raw)) throw new ConfigError(`SMTP_FROM must be an e-mail address, got "${raw}"`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const local = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  }
  const metricsToken = bearerToken(env, 'METRICS_TOKEN');
  return {
    port,
    host,
    baseUrl: origin(env, 'BASE_URL', local),
    authUrl: origin(env, 'AUTH_URL', local),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl,
    logLevel,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 300, 1, 1_000_000_000),
    orderImportsPerHour: integer(env, 'ORDER_IMPORTS_PER_HOUR', DEFAULT_ORDER_IMPORTS_PER_HOUR, 1, 1_000_000),
    signInPerMinute: integer(env, 'SIGN_IN_PER_MINUTE', DEFAULT_SIGN_IN_PER_MINUTE, 1, 1_000_000),
    redisUrl,
    productCacheMb: integer(env, 'PRODUCT_CACHE_MB', DEFAULT_PRODUCT_CACHE_MB, 0, 65_536),
    // One on 2 cores: resizing takes a whole core, and the API must keep the other.
    imageWorkers: integer(env, 'IMAGE_WORKERS', 1, 0, 64),
    imageJobTimeoutSeconds: integer(env, 'IMAGE_JOB_TIMEOUT_SECONDS', 120, 1, 3600),
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookWorkers: integer(env, 'WEBHOOK_WORKERS', 4, 0, 64),
    demoSite: boolean(env, 'DEMO_SITE', true),
    requestTimeoutSeconds: integer(env, 'REQUEST_TIMEOUT_SECONDS', DEFAULT_REQUEST_TIMEOUT_SECONDS, 1, 3600),
    trustProxy: proxyList(env, 'TRUST_PROXY'),
    imageStorage: imageStorage(env),
    metricsToken,
    metricsPort: env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 0, 65535) : undefined,
    smtpUrl: smtpUrl(env),
    smtpFrom: smtpFrom(env),
    testControls: boolean(env, 'TEST_CONTROLS', databaseUrl === undefined),
    testControlsToken: bearerToken(env, 'TEST_CONTROLS_TOKEN'),
    apiLog: boolean(env, 'API_LOG', true),
    apiLogLinesPerSecond: integer(
      env,
      'API_LOG_LINES_PER_SECOND',
      DEFAULT_API_LOG_LINES_PER_SECOND,
      1,
      100_000,
    ),
  };
}
