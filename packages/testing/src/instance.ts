import type {
  EmailFilter,
  Faults,
  LoggedRequest,
  RequestLogFilter,
  SiteTime,
  StoreEmail,
  Triggered,
  TriggerOptions,
} from './controls.js';
import type { App, ConnectOptions, Connection, DemoSite, LoadedSite, Site, SiteOptions } from './types.js';
import type { WebhookReceiver } from './webhook-receiver.js';

/** What startEmporium() answers: a running instance and the helpers that act on it. */
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
