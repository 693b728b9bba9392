/**
 * The API client. Its resources mirror the URL tree (`client.products.images.upload()` is
 * `POST /1.1/commerce/products/{id}/images`, `client.v2.products.images.upload()` its v2 twin),
 * and every call goes through `call()`, then the one request function (`Transport.request`).
 */
import { AuthenticationError, ReauthorizationRequired } from './errors.js';
import type { EmporiumOAuth } from './oauth.js';
import { Transport, type CallOptions, type QueryValue, type TransportOptions } from './request.js';
import { Analytics } from './resources/analytics.js';
import { Discounts } from './resources/discounts.js';
import { FulfillmentOptions } from './resources/fulfillment-options.js';
import { Contacts } from './resources/contacts.js';
import { Inventory } from './resources/inventory.js';
import { Orders } from './resources/orders.js';
import { PRODUCTS_1_1, PRODUCTS_V2, Products } from './resources/products.js';
import { Profiles } from './resources/profiles.js';
import { StorePages } from './resources/store-pages.js';
import { Transactions } from './resources/transactions.js';
import { WebhookSubscriptions } from './resources/webhook-subscriptions.js';
import { WebsiteResource } from './resources/website.js';
import { OAuthSession, type TokenStore } from './tokens.js';
import type { ProductApiV2 } from './types.js';

export interface EmporiumOptions extends TransportOptions {
  userAgent: string;
  /** The API's origin (the server's BASE_URL), e.g. https://api.example.com. */
  baseUrl: string;
  /** An API key (`emp_key_...`) from the owner pages or `emporium admin create-api-key`. */
  apiKey?: string;
  /** A fixed OAuth access token (`emp_at_...`), never refreshed. */
  accessToken?: string;
  /** OAuth tokens kept in `store` under `key`, refreshed when due (see README, "OAuth"). */
  oauth?: { client: EmporiumOAuth; store: TokenStore; key: string };
  /**
   * The authorization server's origin. Informational: the token endpoint used is the one of
   * `oauth.client` (its `authUrl`).
   */
  authUrl?: string;
  /** The clock of the 10-second refresh rule; Date.now by default. */
  now?: () => number;
}

/** The resources served under `/v2`. */
export interface V2Resources {
  /**
   * `/v2/commerce/products`: every product type (PHYSICAL, SERVICE, GIFT_CARD, DIGITAL), where
   * 1.1 (`client.products`) shows PHYSICAL and DIGITAL products only. The same calls as
   * `client.products`, with v2's types.
   */
  readonly products: Products<ProductApiV2>;
}

/** One API call, relative to `baseUrl`. */
export interface ApiRequest extends CallOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path with its segments already encoded, e.g. `/1.1/commerce/products`. */
  path: string;
  query?: Record<string, QueryValue>;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  /** Overrides the default (GET, PUT, DELETE and requests with an Idempotency-Key are retried). */
  idempotent?: boolean;
}

export class Emporium {
  readonly baseUrl: string;
  readonly authUrl: string | undefined;
  readonly transport: Transport;
  /** `/1.1/commerce/products`: PHYSICAL and DIGITAL products only; a new app uses `v2.products`. */
  readonly products: Products;
  readonly v2: V2Resources;
  readonly storePages: StorePages;
  readonly website: WebsiteResource;
  readonly inventory: Inventory;
  readonly webhookSubscriptions: WebhookSubscriptions;
  readonly orders: Orders;
  readonly transactions: Transactions;
  readonly profiles: Profiles;
  readonly analytics: Analytics;
  /** `/v1/commerce/discounts`. */
  readonly discounts: Discounts;
  /** `/v1/fulfillments`: `client.fulfillments.fulfillmentOptions.list()`. */
  readonly fulfillments: { readonly fulfillmentOptions: FulfillmentOptions };
  readonly contacts: Contacts;
  private readonly staticAuthorization: string | undefined;
  private readonly session: OAuthSession | undefined;

  constructor(options: EmporiumOptions) {
    if (!options.baseUrl) throw new TypeError('Emporium: baseUrl is required');
    const credentials = [options.apiKey, options.accessToken, options.oauth].filter((c) => c !== undefined);
    if (credentials.length !== 1) {
      throw new TypeError('Emporium: give exactly one of apiKey, accessToken or oauth');
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.authUrl = options.authUrl ?? options.oauth?.client.authUrl;
    this.transport = new Transport(options);
    const token = options.apiKey ?? options.accessToken;
    if (token !== undefined) this.staticAuthorization = `Bearer ${token}`;
    if (options.oauth) this.session = new OAuthSession(options.oauth, options.now ?? Date.now);
    this.products = new Products(this, PRODUCTS_1_1);
    this.v2 = Object.freeze({ products: new Products<ProductApiV2>(this, PRODUCTS_V2) });
    this.storePages = new StorePages(this);
    this.website = new WebsiteResource(this);
    this.inventory = new Inventory(this);
    this.webhookSubscriptions = new WebhookSubscriptions(this);
    this.orders = new Orders(this);
    this.transactions = new Transactions(this);
    this.profiles = new Profiles(this);
    this.analytics = new Analytics(this);
    this.discounts = new Discounts(this);
    this.fulfillments = Object.freeze({ fulfillmentOptions: new FulfillmentOptions(this) });
    this.contacts = new Contacts(this);
  }

  /**
   * Any API call, with this client's credential, retries and typed errors; the parsed JSON body
   * (undefined for 204). With OAuth: refreshed first when the token is due; a 401 leads to one
   * refresh and one retry, and a 401 after that (or for a token refreshed just before the call)
   * to ReauthorizationRequired. The call's signal aborts a refresh it runs too.
   */
  async call<T = unknown>(request: ApiRequest): Promise<T> {
    const current = this.session ? await this.session.accessToken(request.signal) : undefined;
    const send = (authorization: string) =>
      this.transport
        .request<T>({
          method: request.method,
          url: this.baseUrl + request.path,
          query: request.query,
          json: request.json,
          form: request.form,
          headers: request.headers,
          authorization,
          idempotent: request.idempotent,
          signal: request.signal,
          timeoutMs: request.timeoutMs,
        })
        .then((response) => response.body);
    if (!this.session) return send(this.staticAuthorization!);
    try {
      return await send(`Bearer ${current!.token}`);
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      // Refreshed just before this call (the 10-second rule) and still refused: a second refresh
      // would be refused too (revoked authorization), and would spend another refresh token.
      if (current!.refreshed) {
        throw new ReauthorizationRequired('the access token was refused right after a refresh', error);
      }
      const renewed = await this.session.afterUnauthorized(current!.token, request.signal);
      try {
        return await send(`Bearer ${renewed}`);
      } catch (again) {
        if (again instanceof AuthenticationError) {
          throw new ReauthorizationRequired('the access token was refused after a refresh', again);
        }
        throw again;
      }
    }
  }
}

/** What a resource needs of the client. */
export interface Caller {
  call<T = unknown>(request: ApiRequest): Promise<T>;
  readonly transport: Transport;
}

export const segment = encodeURIComponent;
