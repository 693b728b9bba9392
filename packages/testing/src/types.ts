/*
 * The types of an instance's sites, apps and connections: the options startEmporium() and its
 * helpers take, and what they answer.
 */

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
