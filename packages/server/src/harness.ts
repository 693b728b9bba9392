import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import type { ApiDeps } from './deps.ts';
import type { DatabaseHandle } from './db/database.ts';
import {
  databaseName,
  databaseServer,
  onServer,
  restoreData,
  snapshotData,
  type DatabaseServer,
} from './harness-database.ts';
import * as consent from './harness-consent.ts';
import type { ConnectOptions, Connection, ConsentInstance, HarnessApp } from './harness-consent.ts';
import * as controls from './harness-controls.ts';
import type { HarnessFaults, RequestLogFilter, StoreEmail } from './harness-controls.ts';
import { startOnFreePort, type HarnessOptions } from './harness-instance.ts';
import * as sites from './harness-sites.ts';
import type { HarnessSite, SiteOptions } from './harness-sites.ts';
import type { Instance } from './instance.ts';
import { seedDemoSite, type DemoSite } from './seed.ts';
import { SCOPES } from './shared/scopes.ts';
import { findWebsite } from './sites/websites.repo.ts';
import { trigger, type Triggered, type TriggerOptions } from './testing/triggers.ts';
import { loadShifts } from './sites/site-clocks.ts';
import type { SiteTime } from './testing/site-clock.ts';
import { loadFixture, type LoadedSite } from './testing/fixtures/load-fixture.ts';
import type { LoggedRequest } from './api-log/requests.service.ts';
import type { EmailFilter } from './emails/emails.read.ts';

/*
 * Emporium inside a test process, for @emporium/testing: each instance on a database of its own
 * (harness-database.ts), on a free port of 127.0.0.1, with its workers in the process
 * (harness-instance.ts). The helpers act as a site owner and a developer would, through the
 * services (harness-sites.ts) and, for consent, through the owner's pages over HTTP
 * (harness-consent.ts); the test controls (clock, faults, request log, e-mails) are in
 * harness-controls.ts.
 */

export type { HarnessOptions } from './harness-instance.ts';
export type { HarnessSite, SiteOptions } from './harness-sites.ts';
export type { ConnectOptions, Connection, HarnessApp } from './harness-consent.ts';
export type { RequestLogFilter, StoreEmail } from './harness-controls.ts';

export class Harness {
  readonly url: string;
  private readonly instance: Instance;
  private readonly handle: DatabaseHandle;
  /** Whether reset() goes back to a snapshot, rather than to no data. */
  private snapshotTaken = false;
  /** The owners and the developer this instance made, the owners by id for the consent flow. */
  private readonly accounts: sites.HarnessAccounts;
  private stopped = false;

  private constructor(
    private readonly server: DatabaseServer,
    private readonly database: string,
    config: Config,
    private readonly folder: string,
    started: { instance: Instance; handle: DatabaseHandle },
  ) {
    this.url = config.baseUrl;
    this.instance = started.instance;
    this.handle = started.handle;
    this.accounts = new sites.HarnessAccounts(this.instance.api);
    this.faults = controls.faults(this.instance);
  }

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const server = await databaseServer(options.databaseUrl);
    const database = databaseName();
    await onServer(server.url, `CREATE DATABASE ${database} TEMPLATE ${server.template}`);
    const folder = fs.mkdtempSync(path.join(server.folder, 'instance-'));
    // A free port, found by listening on port 0: the base URL in every link must name it.
    const started = await startOnFreePort(server, database, folder, options);
    const harness = new Harness(server, database, started.config, folder, started);
    if (options.demo) {
      // The demo is made once; reset() goes back to it by the snapshot, not by making it again.
      const demo = await seedDemoSite(harness.api);
      if (demo) {
        const website = await findWebsite(harness.api.db, demo.websiteId);
        harness.accounts.owners.set(website!.owner_id, { email: demo.email, password: demo.password });
        harness.demo = demo;
      }
      await harness.snapshot();
    }
    if (options.fixture !== undefined) {
      harness.site = await harness.loadFixture(options.fixture);
      await harness.snapshot();
    }
    return harness;
  }

  /** The site of the `fixture` option, when one was given. */
  site: (LoadedSite & { owner: { email: string; password: string } }) | undefined;

  /**
   * Loads a site fixture (docs/fixtures.md), a file's path or the document, as a new website of
   * a new owner (or `ownerEmail`, an owner this instance made). Pictures named by path are read
   * relative to the file, or to `baseDir`.
   */
  async loadFixture(
    fixture: string | object,
    options: { ownerEmail?: string; baseDir?: string } = {},
  ): Promise<LoadedSite & { owner: { email: string; password: string } }> {
    const owner = await this.accounts.owner(options.ownerEmail);
    const document: unknown =
      typeof fixture === 'string' ? JSON.parse(fs.readFileSync(fixture, 'utf8')) : fixture;
    const baseDir =
      options.baseDir ?? (typeof fixture === 'string' ? path.dirname(path.resolve(fixture)) : process.cwd());
    const loaded = await loadFixture(this.api, document, { ownerEmail: owner.email, baseDir });
    return { ...loaded, owner };
  }

  /** The demo site, when the instance was started with `demo`. */
  demo: DemoSite | undefined;

  /** The services' dependencies the running app uses, for calling services directly. */
  get api(): ApiDeps {
    return this.instance.api;
  }

  async createSite(options: SiteOptions = {}): Promise<HarnessSite> {
    return sites.createSite(this.api, this.accounts, options);
  }

  /** An API key of the website with these scopes (every scope by default), shown this once. */
  async createApiKey(websiteId: string, scopes: readonly string[] = SCOPES, name = 'test'): Promise<string> {
    return sites.createApiKey(this.api, websiteId, scopes, name);
  }

  /** An app (OAuth client) of a developer account of this instance. */
  async registerApp(
    options: { name?: string; redirectUri?: string; initiateUrl?: string } = {},
  ): Promise<HarnessApp> {
    return sites.registerApp(this.api, this.accounts, options);
  }

  /**
   * The website's owner connects the app, as in a browser: the authorization URL, sign-in, the
   * consent page's Allow, the redirect with the code; then the app redeems the code at the token
   * endpoint (unless `codeOnly`). Every rule of the flow applies: an unknown scope or a redirect
   * URI the app did not register fails here as it would for the app.
   */
  async connect(app: HarnessApp, websiteId: string, options: ConnectOptions = {}): Promise<Connection> {
    return consent.connect(this.consenting, app, websiteId, options);
  }

  /**
   * The website's owner follows an authorization URL an app made (its own state, PKCE challenge
   * and scopes), signs in and answers the consent page: Allow, or Deny with `decision: 'deny'`.
   * Returns where the browser goes back to: the app's redirect URI with the code and state, or
   * with the error. A request the authorization endpoint refuses outright is an error here.
   */
  async approve(
    authorizationUrl: string,
    websiteId: string,
    { decision = 'allow' }: { decision?: 'allow' | 'deny' } = {},
  ): Promise<string> {
    return consent.approve(this.consenting, authorizationUrl, websiteId, { decision });
  }

  /** This instance to the consent flow: its address, its database, and the owners it can sign in as. */
  private get consenting(): ConsentInstance {
    return { url: this.url, db: this.api.db, owners: this.accounts.owners };
  }

  /**
   * Makes the real change that sends `topic` on the website (testing/triggers.ts), through the
   * services and the outbox: the app's follow-up calls find what the notification names.
   */
  trigger(topic: string, websiteId: string, options: TriggerOptions = {}): Promise<Triggered> {
    return trigger(this.api, topic, { ...options, websiteId });
  }

  /**
   * Moves the website's clock ahead by `by` (`'48h'`, `'90m'`, or milliseconds), never back
   * (testing/site-clock.ts): its tokens and codes come nearer their expiry, its notification
   * retries that fell due are sent, and what it writes carries the later time.
   */
  async advanceClock(websiteId: string, by: string | number): Promise<SiteTime> {
    return controls.advanceClock(this.instance, websiteId, by);
  }

  /** The website's time now, and how far it runs ahead of the service's. */
  siteTime(websiteId: string): Promise<SiteTime> {
    return controls.siteTime(this.instance, websiteId);
  }

  /**
   * The website's request log, newest first: what the app sent and was answered, secrets
   * removed. The lines still in memory are written first, so a test reads its last request.
   */
  requests(websiteId: string, filter: RequestLogFilter = {}): Promise<LoggedRequest[]> {
    return controls.requests(this.instance, websiteId, filter);
  }

  /**
   * The e-mails the website's store sent its shoppers (emails/), oldest first: order
   * confirmations, shipping and cancellation notices, each in HTML and text with its SMTP status.
   */
  emails(websiteId: string, filter: EmailFilter = {}): Promise<StoreEmail[]> {
    return controls.emails(this.instance, websiteId, filter);
  }

  /**
   * A website's injected faults (faults/, docs/testing-your-app.md, "When things go wrong"): rules
   * that make its API answer with an error status, late, slowly or not at all.
   */
  readonly faults: HarnessFaults;

  /** The bearer token of the test controls over HTTP (/_emporium/, docs/testing-your-app.md). */
  get testControlsToken(): string {
    return this.instance.testControlsToken!;
  }

  /**
   * Back to how the instance started (empty, or the demo), or to the last snapshot(): the data
   * tables refilled in one transaction and the caches told to forget, while the instance runs
   * on, at the same address.
   */
  async reset(): Promise<void> {
    await restoreData(this.api.pool, { empty: !this.snapshotTaken });
    const images = path.join(this.folder, 'images');
    fs.rmSync(images, { recursive: true, force: true });
    if (this.snapshotTaken) fs.cpSync(this.snapshotImages, images, { recursive: true });
    this.instance.changes.forgetEverything();
    // The clocks go back with the data, before reset() returns (the feed's reload is not awaited).
    await loadShifts(this.api.db, this.api.clock);
    await this.api.faults.reload();
  }

  /** What reset() goes back to from now on: the data as it is (a loaded fixture, say). */
  async snapshot(): Promise<void> {
    await snapshotData(this.api.pool);
    const images = path.join(this.folder, 'images');
    fs.rmSync(this.snapshotImages, { recursive: true, force: true });
    if (fs.existsSync(images)) fs.cpSync(images, this.snapshotImages, { recursive: true });
    else fs.mkdirSync(this.snapshotImages);
    this.snapshotTaken = true;
  }

  private get snapshotImages(): string {
    return path.join(this.folder, 'snapshot-images');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.instance.stop();
    await this.handle.close();
    await onServer(this.server.url, `DROP DATABASE IF EXISTS ${this.database} WITH (FORCE)`);
    fs.rmSync(this.folder, { recursive: true, force: true });
  }
}

export function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  return Harness.start(options);
}
