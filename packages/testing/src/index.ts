/**
 * @emporium/testing: Emporium started from an app's own test suite. Each `startEmporium()` is an
 * isolated instance on a free port of 127.0.0.1, on a database of its own, with its workers in
 * the test process; helpers make sites, API keys and apps, connect an app through the real
 * authorization and consent endpoints, receive its signed webhooks, reset and stop.
 */
import { register, type NamespacedUnregister } from 'tsx/esm/api';
import { WebhookReceiver } from './webhook-receiver.js';

export { WebhookReceiver, type Notification, type Subscription } from './webhook-receiver.js';

export interface EmporiumOptions {
  /**
   * A PostgreSQL server (`postgres://user@host:5432/postgres`) to make the instance's database on,
   * dropped at stop(); by default an embedded server in a temporary folder, one a test process.
   */
  databaseUrl?: string;
  /** Start with the demo site of `npm start` (reset() goes back to it); none by default. */
  demo?: boolean;
  /** The service's log level: `warn` by default. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** API requests a credential may make a minute: the platform's 300 by default. */
  rateLimitPerMinute?: number;
  /**
   * A site fixture (docs/fixtures.md), as a file's path or the document, loaded at start as a
   * site of a new owner (`store.site`); reset() goes back to it.
   */
  fixture?: string | object;
}

export interface SiteOptions {
  title?: string;
  /** ISO 4217, `USD` by default. */
  currency?: string;
  measurementStandard?: 'IMPERIAL' | 'METRIC';
  timeZone?: string;
  /** An owner this instance made (another site's `owner.email`); a new owner by default. */
  ownerEmail?: string;
  /** The scopes of the site's API key: every scope by default. */
  scopes?: readonly string[];
}

export interface Site {
  websiteId: string;
  /** The store page the site starts with ("Shop"). */
  storePageId: string;
  /** An API key of the site with the scopes asked for. */
  apiKey: string;
  /** The owner, with the password the owner pages take. */
  owner: { email: string; password: string };
}

export interface App {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface ConnectOptions {
  /** The scopes the app asks for: every scope by default. */
  scopes?: readonly string[];
  /** Ask for a refresh token (`access_type=offline`): true by default. */
  offline?: boolean;
  /** Stop at the code, for an app that redeems it itself: false by default. */
  codeOnly?: boolean;
  state?: string;
  /** A PKCE challenge (S256); the app then redeems the code with its verifier. */
  codeChallenge?: string;
}

/** The token endpoint's answer (api-details 2). */
export interface Tokens {
  access_token: string;
  access_token_expires_at: string;
  refresh_token?: string;
  refresh_token_expires_at?: string;
  token_type?: string;
  [field: string]: unknown;
}

export interface Connection {
  code: string;
  state: string;
  /** Absent with `codeOnly`. */
  tokens?: Tokens;
}

/** What trigger() may name, each as the CLI's flag is (`--order` is `orderId`): see docs/triggers.md. */
export interface TriggerOptions {
  sku?: string;
  quantity?: number;
  email?: string;
  orderId?: string;
  /** order.update: `FULFILLED` (the default) or `CANCELED`. */
  action?: string;
  clientId?: string;
  contactId?: string;
  addressId?: string;
  productId?: string;
  name?: string;
}

/** What a trigger changed, and how many notifications it queued. */
export interface Triggered {
  topic: string;
  websiteId: string;
  /** The ids (and values) the change made or changed. */
  changed: Record<string, string | number | boolean>;
  notifications: { queued: number; note?: string };
}

/** A website's time: its clock, which advanceClock() moves ahead of the service's. */
export interface SiteTime {
  websiteId: string;
  /** The website's time now. */
  now: Date;
  /** How far the website's clock runs ahead of the service's, in milliseconds (0 until advanced). */
  shiftMs: number;
}

/** The kinds of e-mail a store sends its shoppers. */
export type EmailKind = 'order_confirmation' | 'shipping_notice' | 'cancellation_notice' | 'refund_notice';

/** An e-mail the store sent a shopper (emails()). */
export interface StoreEmail {
  id: string;
  websiteId: string;
  kind: EmailKind;
  /** The order it tells of. */
  orderId: string | null;
  /** The buyer's address. */
  to: string;
  subject: string;
  /** The HTML version, every value of the store and shopper escaped. */
  html: string;
  text: string;
  /** When it was written, in the website's time (with the change it tells of). */
  createdOn: Date;
  /** Its SMTP delivery: NOT_SENT unless the instance has SMTP_URL. */
  status: 'NOT_SENT' | 'PENDING' | 'SENT' | 'FAILED';
  /** SMTP attempts made. */
  attempts: number;
  /** Why the last failed SMTP attempt failed. */
  lastError: string | null;
  sentOn: Date | null;
}

/** Which e-mails emails() returns; every field narrows. */
export interface EmailFilter {
  kind?: EmailKind;
  /** The recipient, whatever its case. */
  to?: string;
  orderId?: string;
}

/** One request of a site's log (requests()): secrets removed, each body cut at 16 KB. */
export interface LoggedRequest {
  id: string;
  websiteId: string;
  /** When it was answered, in the website's time. */
  at: Date;
  method: string;
  /** Path and query, as sent. */
  path: string;
  status: number;
  latencyMs: number;
  /** The request id: the contextId of its error body and of the service's log lines. */
  contextId: string;
  /** The API key (its id and name) or the app (its client id and name) that sent it. */
  credential: { kind: 'api_key' | 'oauth'; id: string; name: string | null };
  /** The injected fault it met (`status 503`, `latency 800ms`...), or null. */
  fault: string | null;
  requestBody: string | null;
  /** The body was longer than the 16 KB kept. */
  requestBodyCut: boolean;
  responseBody: string | null;
  responseBodyCut: boolean;
}

/**
 * An injected fault (faults.add()): requests of the website that match it are answered with an
 * error, late, slowly or not at all. Give exactly one effect: `status`, `latency`, `reset` or
 * `slowBody`.
 */
export interface FaultRule {
  /** `METHOD /path` or `/path` (any method); `*` matches any run of characters: `POST /1.0/commerce/orders*`. */
  match: string;
  /** Answer with this status (429, 500, 502, 503, 504) in the API's error body. */
  status?: 429 | 500 | 502 | 503 | 504;
  /** With status 429: the Retry-After seconds (1 by default). */
  retryAfter?: number;
  /** Wait this many ms (800), or a number drawn from a range (`'200..900'`), then answer as usual. */
  latency?: number | string;
  /** Close the connection without an answer: the app sees a socket hang up. */
  reset?: true;
  /** Send the real answer in small chunks over this many ms. */
  slowBody?: number;
  /** The share of matching requests picked, 0..1 (1 by default). */
  probability?: number;
  /** The seed of the rule's random numbers: the same seed picks the same requests again. */
  seed?: number;
  /** Only the first `count` faults. */
  count?: number;
  /** Until this time of the site (RFC 3339): advanceClock() past it ends the rule. */
  until?: string;
  /** Only this app's requests (its client id), its token requests included. */
  app?: string;
  /** Only the requests made with this API key (its id). */
  apiKey?: string;
}

/** A fault rule as held: the rule, its seed, and what remains of its count. */
export interface Fault {
  id: string;
  websiteId: string;
  match: string;
  effect: 'status' | 'latency' | 'reset' | 'slow_body';
  status: number | null;
  retryAfter: number | null;
  latency: { minMs: number; maxMs: number } | null;
  slowBodyMs: number | null;
  probability: number;
  seed: number;
  count: number | null;
  remaining: number | null;
  until: string | null;
  app: string | null;
  apiKey: string | null;
  createdAt: string;
}

/** A website's injected faults. */
export interface Faults {
  /** Adds a rule; a wrong one is refused (a ValidationError naming the field) and nothing is added. */
  add(websiteId: string, rule: FaultRule): Promise<Fault>;
  /** The website's rules, oldest first. */
  list(websiteId: string): Promise<Fault[]>;
  /** Removes one rule by its id, or every rule of the website. */
  clear(websiteId: string, id?: string): Promise<{ removed: number }>;
}

/** Which logged requests requests() returns; every field narrows. */
export interface RequestLogFilter {
  /** An app's requests, by its client id. */
  app?: string;
  /** An API key's requests, by its id. */
  apiKey?: string;
  status?: '2xx' | '3xx' | '4xx' | '5xx';
  /** Paths (with their query) that start with this. */
  path?: string;
  contextId?: string;
  /** At most 100; 50 by default. */
  limit?: number;
}

/** A site loaded from a fixture: its ids, the keys and apps it made (secrets shown this once). */
export interface LoadedSite {
  websiteId: string;
  /** "Shop" first, then the fixture's store pages in order. */
  storePageIds: string[];
  /** The id of each product that has a `ref`, by ref. */
  productIds: Record<string, string>;
  orderIds: string[];
  apiKeys: { name: string; apiKey: string; scopes: string[] }[];
  apps: {
    name: string;
    clientId: string;
    clientSecret: string;
    grant?: { scopes: string[]; accessToken: string; refreshToken?: string };
    webhookSubscriptions: { id: string; endpointUrl: string; topics: string[]; secret: string }[];
  }[];
  owner: { email: string; password: string };
}

/** The demo site, when started with `demo`. */
export interface DemoSite {
  email: string;
  password: string;
  websiteId: string;
  storePageId: string;
  apiKey: string;
}

export interface EmporiumInstance {
  /** The base URL of the API, the store and the owner pages: `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly demo: DemoSite | undefined;
  /** The site of the `fixture` option. */
  readonly site: LoadedSite | undefined;
  createSite(options?: SiteOptions): Promise<Site>;
  /** Another API key of a site, shown this once; every scope by default. */
  createApiKey(websiteId: string, scopes?: readonly string[], name?: string): Promise<string>;
  /** An app (OAuth client) of a developer account; its redirect URI is `http://127.0.0.1/callback` by default. */
  registerApp(options?: { name?: string; redirectUri?: string; initiateUrl?: string }): Promise<App>;
  /**
   * The site's owner connects the app as in a browser (authorization URL, sign-in, the consent
   * page's Allow); the app then redeems the code at the token endpoint unless `codeOnly`.
   */
  connect(app: App, websiteId: string, options?: ConnectOptions): Promise<Connection>;
  /**
   * The site's owner follows an authorization URL your app made (its own state, PKCE and
   * scopes) and answers the consent page: Allow, or Deny with `decision: 'deny'`. Returns where
   * the browser goes back to: your redirect URI with the code and state, or with the error.
   */
  approve(
    authorizationUrl: string,
    websiteId: string,
    options?: { decision?: 'allow' | 'deny' },
  ): Promise<string>;
  /**
   * Loads a site fixture (docs/fixtures.md) as a new website: a file's path (pictures relative to
   * it) or the document. A malformed one is refused with the JSON path of its first error, and
   * nothing is written.
   */
  loadFixture(
    fixture: string | object,
    options?: { ownerEmail?: string; baseDir?: string },
  ): Promise<LoadedSite>;
  /**
   * Makes the real change that sends `topic` on the website (an order placed from its stock, a
   * fulfilment, an app's grant revoked, a contact or product changed), and its real, signed
   * notifications to the website's subscriptions. Bad input is refused and changes nothing.
   */
  trigger(topic: string, websiteId: string, options?: TriggerOptions): Promise<Triggered>;
  /**
   * Moves one website's clock ahead by `by` (`'48h'`, `'90m'`, `'1d12h'`, or milliseconds), so a
   * test sees what happens later without waiting. The clock only moves forward: zero, a negative
   * duration (`'-1h'`) or malformed text is refused with a ValidationError and changes nothing
   * (at most ten years ahead in all). From then on the site's access tokens (30 minutes),
   * authorization codes and refresh tokens are that much nearer their expiry; its discounts'
   * start and end are judged by its time; the retries of its notifications that fell due are
   * sent; later writes (orders, products, notifications) carry the later time, and
   * `modifiedAfter` windows and transaction summaries read it. Other websites keep their time.
   * Returns the site's time after the move.
   */
  advanceClock(websiteId: string, by: string | number): Promise<SiteTime>;
  /** The website's time now, and how far advanceClock() has moved it ahead of the service's. */
  siteTime(websiteId: string): Promise<SiteTime>;
  /**
   * The website's request log, newest first (at most 100): each API and token request your app
   * made, with its status, latency, the credential (`kind`, `id`, `name`: the API key or the app)
   * and the bodies as text, secrets replaced by `[redacted]` and each body cut at 16 KB. Narrow it
   * with `filter` (an app or key, a status class, a path prefix, a contextId). Reads what the
   * service holds in memory too, so the request a test just made is there.
   */
  requests(websiteId: string, filter?: RequestLogFilter): Promise<LoggedRequest[]>;
  /**
   * The e-mails the website's store sent its shoppers, oldest first (docs/testing-your-app.md,
   * "What the store sends: e-mails"): the order confirmation of a checkout or an order.create
   * trigger, the shipping notice of a fulfillment with `shouldSendNotification: true`, the
   * cancellation notice of a canceled order, each in HTML and text. Narrow it with `filter` (a
   * kind, a recipient, an order). Written with the change they tell of: a change that failed
   * wrote none.
   */
  emails(websiteId: string, filter?: EmailFilter): Promise<StoreEmail[]>;
  /**
   * Injected faults: make the website's API answer with an error status (its error body, with
   * Retry-After for a 429), late, slowly or not at all, for every request or only an app's or a
   * key's, with a probability and seed, for a count or until a time of the site
   * (docs/testing-your-app.md, "When things go wrong"). reset() removes them with the data.
   */
  readonly faults: Faults;
  /**
   * The bearer token of the test controls over HTTP (`/_emporium/...`, docs/testing-your-app.md):
   * `Authorization: Bearer <testControlsToken>`, for an app under test in another process or
   * language to move a site's clock, trigger webhooks or load fixtures.
   */
  readonly testControlsToken: string;
  /** An endpoint for the app's webhooks that checks their signatures; close() it when done. */
  webhookReceiver(): Promise<WebhookReceiver>;
  /** Back to how it started (empty, or the demo), or to the last snapshot(). */
  reset(): Promise<void>;
  /** What reset() goes back to from now on: the data as it is now. */
  snapshot(): Promise<void>;
  /** Stops it and drops its database. */
  stop(): Promise<void>;
}

/** The server's harness (packages/server/src/harness.ts), as this package uses it. */
interface Harness {
  url: string;
  demo: DemoSite | undefined;
  site: LoadedSite | undefined;
  loadFixture(
    fixture: string | object,
    options?: { ownerEmail?: string; baseDir?: string },
  ): Promise<LoadedSite>;
  createSite(options: Omit<SiteOptions, 'scopes'>): Promise<Omit<Site, 'apiKey'>>;
  createApiKey(websiteId: string, scopes?: readonly string[], name?: string): Promise<string>;
  registerApp(options?: { name?: string; redirectUri?: string; initiateUrl?: string }): Promise<App>;
  connect(app: App, websiteId: string, options?: ConnectOptions): Promise<Connection>;
  approve(
    authorizationUrl: string,
    websiteId: string,
    options?: { decision?: 'allow' | 'deny' },
  ): Promise<string>;
  trigger(topic: string, websiteId: string, options?: TriggerOptions): Promise<Triggered>;
  advanceClock(websiteId: string, by: string | number): Promise<SiteTime>;
  siteTime(websiteId: string): Promise<SiteTime>;
  requests(websiteId: string, filter?: RequestLogFilter): Promise<LoggedRequest[]>;
  emails(websiteId: string, filter?: EmailFilter): Promise<StoreEmail[]>;
  readonly faults: Faults;
  readonly testControlsToken: string;
  reset(): Promise<void>;
  snapshot(): Promise<void>;
  stop(): Promise<void>;
}

type HarnessModule = { startHarness(options: EmporiumOptions): Promise<Harness> };
type DatabaseModule = { databaseServer(serverUrl: string | undefined): Promise<unknown> };

/**
 * The server's TypeScript sources through tsx, in a namespace of their own: the test files keep
 * whatever loader they run under (node, vitest, jest). One namespace a process, so that every
 * import shares its modules (the process's database server among them).
 */
let server: NamespacedUnregister | undefined;
function serverImport<T>(file: string): Promise<T> {
  server ??= register({ namespace: 'emporium-testing' });
  return server.import(`@emporium/server/src/${file}`, import.meta.url) as Promise<T>;
}

/**
 * The harness, its database server already starting: the small database module loads first and
 * starts initdb and the template's migrations, while the rest of the service's modules load.
 */
async function loadHarness(databaseUrl: string | undefined): Promise<HarnessModule> {
  const { databaseServer } = await serverImport<DatabaseModule>('harness-database.ts');
  const starting = databaseServer(databaseUrl);
  starting.catch(() => {}); // awaited, and reported, by startHarness
  return serverImport<HarnessModule>('harness.ts');
}

export async function startEmporium(options: EmporiumOptions = {}): Promise<EmporiumInstance> {
  const { startHarness } = await loadHarness(options.databaseUrl);
  const harness = await startHarness(options);
  const receivers = new Set<WebhookReceiver>();
  return {
    url: harness.url,
    demo: harness.demo,
    site: harness.site,
    loadFixture: (fixture, options) => harness.loadFixture(fixture, options),
    async createSite({ scopes, ...site } = {}) {
      const made = await harness.createSite(site);
      return { ...made, apiKey: await harness.createApiKey(made.websiteId, scopes) };
    },
    createApiKey: (websiteId, scopes, name) => harness.createApiKey(websiteId, scopes, name),
    registerApp: (options) => harness.registerApp(options),
    connect: (app, websiteId, options) => harness.connect(app, websiteId, options),
    approve: (url, websiteId, options) => harness.approve(url, websiteId, options),
    trigger: (topic, websiteId, options) => harness.trigger(topic, websiteId, options),
    // async: the harness parses `by` before its promise, so a bad one would throw, not reject.
    advanceClock: async (websiteId, by) => harness.advanceClock(websiteId, by),
    siteTime: (websiteId) => harness.siteTime(websiteId),
    requests: (websiteId, filter) => harness.requests(websiteId, filter),
    emails: (websiteId, filter) => harness.emails(websiteId, filter),
    faults: {
      add: (websiteId, rule) => harness.faults.add(websiteId, rule),
      list: (websiteId) => harness.faults.list(websiteId),
      clear: (websiteId, id) => harness.faults.clear(websiteId, id),
    },
    // A getter of the harness: read once, the token does not change while the instance runs.
    testControlsToken: harness.testControlsToken,
    async webhookReceiver() {
      const receiver = await WebhookReceiver.listen(harness.url);
      receivers.add(receiver);
      return receiver;
    },
    reset: () => harness.reset(),
    snapshot: () => harness.snapshot(),
    async stop() {
      await Promise.all([...receivers].map((receiver) => receiver.close()));
      await harness.stop();
    },
  };
}
