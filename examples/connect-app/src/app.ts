/**
 * An example third-party app on Emporium: a site owner connects their store (OAuth with PKCE
 * and offline access), the app lists the store's products, reads each new order it hears of
 * (the order.create webhook), and forgets the store when the owner revokes it (the
 * extension.uninstall webhook). node:http and the SDK only.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessDenied, Emporium, EmporiumError, EmporiumOAuth, ReauthorizationRequired } from '@emporium/sdk';
import { JsonFileTokenStore } from '@emporium/sdk/node';
import { tokenFile, type AppConfig } from './config.ts';
import { html, page, type Html } from './html.ts';
import { PendingAuthorizations } from './pending.ts';
import { SiteStore } from './sites.ts';
import { WebhookReceiver } from './webhooks.ts';

export type { AppConfig } from './config.ts';
export { configFromEnv } from './config.ts';

const USER_AGENT = 'emporium-connect-app/1.0';
const FLOW_COOKIE = 'connect_flow';
const WEBSITE_ID = /^[0-9a-f]{24}$/;
/** The products page shows this many at most, so one page stays one page. */
const MAX_PRODUCTS = 500;
/** New orders kept for each site (in memory only), newest first. */
const MAX_RECENT_ORDERS = 20;

/** An order the app heard of (order.create) and read back through the API. */
export interface RecentOrder {
  id: string;
  orderNumber: string;
}

export interface RunningApp {
  /** Where it listens: http://127.0.0.1:<port>. */
  url: string;
  /**
   * 'connected' and 'forgotten', each with the website id, and 'order' with the website id and
   * the RecentOrder read: for tests and logs.
   */
  events: EventEmitter;
  /** The orders of a site the app heard of since it started, newest first. */
  recentOrders(websiteId: string): RecentOrder[];
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly body: Html,
  ) {
    super(title);
  }
}

export async function startApp(config: AppConfig): Promise<RunningApp> {
  const events = new EventEmitter();
  const sites = await SiteStore.open(config.dataFile);
  const tokens = new JsonFileTokenStore(tokenFile(config.dataFile));
  const pending = new PendingAuthorizations();
  const orders = new Map<string, RecentOrder[]>();
  const redirectUri = `${config.appUrl}/callback`;
  const webhookUrl = `${config.appUrl}/webhooks`;
  const secureCookie = config.appUrl.startsWith('https:');
  const auth = new EmporiumOAuth({
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    redirectUri,
    authUrl: config.authUrl,
    userAgent: USER_AGENT,
  });

  /** A client for a connected site that refreshes its tokens by itself, through the store. */
  const siteClient = (websiteId: string) =>
    new Emporium({
      userAgent: USER_AGENT,
      baseUrl: config.baseUrl,
      authUrl: config.authUrl,
      oauth: { client: auth, store: tokens, key: websiteId },
    });

  /** Forgets a site: its tokens, its webhook secret and its orders. */
  async function forget(websiteId: string) {
    await tokens.delete(websiteId);
    await sites.delete(websiteId);
    orders.delete(websiteId);
    events.emit('forgotten', websiteId);
  }

  const webhooks = new WebhookReceiver({
    secretOf: (websiteId) => sites.get(websiteId)?.webhookSecret,
    async uninstalled(websiteId) {
      if (sites.get(websiteId)) await forget(websiteId);
    },
    async orderCreated(websiteId, orderId) {
      // The notification names the order only: its details come from the API, with the site's token.
      const order = await siteClient(websiteId).orders.get(orderId);
      const kept = { id: order.id, orderNumber: order.orderNumber };
      const list = (orders.get(websiteId) ?? []).filter((o) => o.id !== kept.id);
      orders.set(websiteId, [kept, ...list].slice(0, MAX_RECENT_ORDERS));
      events.emit('order', websiteId, kept);
    },
  });

  function home(): string {
    const connected = sites.all();
    return page(
      'Connected stores',
      html`<h1>Connected stores</h1>
        ${
          connected.length === 0
            ? html`<p class="muted">No store is connected yet.</p>`
            : html`<ul>
                ${connected.map(
                  ([id, site]) =>
                    html`<li>
                      <a href="/sites/${id}">${site.title}</a> <span class="muted">(${id})</span>
                    </li>`,
                )}
              </ul>`
        }
        <p><a class="button" href="/connect">Connect a store</a></p>`,
    );
  }

  function connect(url: URL, res: http.ServerResponse) {
    const websiteId = url.searchParams.get('website_id');
    const request = auth.authorizeUrl({
      scopes: ['website.products.read', 'website.orders.read'],
      offline: true,
      pkce: true,
      // A reconnect names its site, so the owner is not asked to pick one.
      ...(websiteId && WEBSITE_ID.test(websiteId) && { websiteId }),
    });
    // With pkce: true the SDK always returns a verifier.
    const flow = pending.add({ state: request.state, codeVerifier: request.codeVerifier! });
    res.setHeader('set-cookie', cookie(FLOW_COOKIE, flow, 15 * 60));
    redirect(res, request.url);
  }

  async function callback(req: http.IncomingMessage, url: URL, res: http.ServerResponse) {
    const flowKey = cookies(req).get(FLOW_COOKIE);
    const flow = flowKey ? pending.take(flowKey) : undefined;
    res.setHeader('set-cookie', cookie(FLOW_COOKIE, '', 0));
    let code: string;
    try {
      ({ code } = auth.handleCallback(url.href, { state: flow?.state ?? '' }));
    } catch (err) {
      if (err instanceof AccessDenied) {
        throw new HttpError(
          200,
          'Not connected',
          html`<h1>Not connected</h1>
            <p>The store owner declined to connect their store, so the app has no access to it.</p>
            <p><a href="/">Back</a> · <a href="/connect">Try again</a></p>`,
        );
      }
      // No pending flow (expired, used, another browser) or a state that is not ours: either
      // way this callback cannot be trusted to belong to the owner in front of us.
      throw new HttpError(
        400,
        'Connection expired',
        html`<h1>This connection attempt is no longer valid</h1>
          <p>It expired, was already used, or was started in another browser. Please start again.</p>
          <p><a class="button" href="/connect">Connect a store</a></p>`,
      );
    }
    // The new pair is saved before its access token is first used (the code cannot be
    // redeemed twice), under a key of this flow until the website it belongs to is known.
    const pendingKey = `pending:${flowKey!}`;
    await tokens.set(pendingKey, await auth.exchangeCode(code, { codeVerifier: flow!.codeVerifier }));
    const website = await siteClient(pendingKey).website.get();
    const tokenSet = await tokens.get(pendingKey);
    if (tokenSet) await tokens.set(website.id, tokenSet);
    await tokens.delete(pendingKey);
    const reconnect = sites.get(website.id) !== undefined;
    try {
      const api = siteClient(website.id);
      const subscription = await api.webhookSubscriptions.create({
        endpointUrl: webhookUrl,
        topics: ['extension.uninstall', 'order.create'],
      });
      await sites.set(website.id, {
        title: website.title,
        subscriptionId: subscription.id,
        webhookSecret: subscription.secret,
        connectedOn: new Date().toISOString(),
      });
      // A reconnect leaves the app's earlier subscription behind, whose secret the record just
      // replaced: one subscription a site. Deleted only now, so a failure above keeps the old one.
      for await (const old of api.webhookSubscriptions.list()) {
        if (old.endpointUrl === webhookUrl && old.id !== subscription.id) {
          await api.webhookSubscriptions.delete(old.id);
        }
      }
    } catch (err) {
      // Without a subscription the app would never hear of a revocation: a first connection
      // fails whole. A reconnect keeps its earlier subscription and record, still valid.
      if (!reconnect) await tokens.delete(website.id);
      throw err;
    }
    events.emit('connected', website.id);
    redirect(res, `/sites/${website.id}`);
  }

  async function products(websiteId: string): Promise<string> {
    const site = sites.get(websiteId);
    if (!site) {
      throw new HttpError(
        404,
        'Not connected',
        html`<h1>This store is not connected</h1>
          <p><a href="/">Back</a> · <a href="/connect">Connect a store</a></p>`,
      );
    }
    const rows: Html[] = [];
    let more = false;
    try {
      for await (const product of siteClient(websiteId).products.list()) {
        if (rows.length === MAX_PRODUCTS) {
          more = true;
          break;
        }
        // PHYSICAL products are priced by variant, DIGITAL ones on the product.
        const variant = product.variants[0];
        const pricing = variant?.pricing ?? product.pricing;
        const money = pricing && (pricing.onSale ? pricing.salePrice : pricing.basePrice);
        rows.push(
          html`<tr>
            <td>${product.name}</td>
            <td>${variant?.sku ?? '—'}</td>
            <td class="price">${money ? `${money.value} ${money.currency}` : '—'}</td>
          </tr>`,
        );
      }
    } catch (err) {
      if (!(err instanceof ReauthorizationRequired)) throw err;
      return page(
        'Reconnect',
        html`<h1>${site.title}</h1>
          <p>
            The app no longer holds access to this store: the owner revoked it, or it was unused too long.
          </p>
          <p><a class="button" href="/connect?website_id=${websiteId}">Reconnect</a></p>`,
      );
    }
    return page(
      site.title,
      html`<h1>${site.title}</h1>
        <h2>Products</h2>
        ${
          rows.length === 0
            ? html`<p class="muted">This store has no products yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>SKU</th>
                    <th class="price">Price</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>`
        }
        ${more ? html`<p class="muted">The first ${MAX_PRODUCTS} products are shown.</p>` : ''}
        ${
          (orders.get(websiteId) ?? []).length === 0
            ? ''
            : html`<h2>New orders</h2>
                <ul>
                  ${orders.get(websiteId)!.map((order) => html`<li>Order ${order.orderNumber}</li>`)}
                </ul>`
        }
        <p><a href="/">All connected stores</a></p>`,
    );
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', config.appUrl);
    const method = req.method ?? 'GET';
    if (url.pathname === '/webhooks' && method === 'POST') return webhooks.handle(req, res);
    if (method !== 'GET' && method !== 'HEAD') {
      throw new HttpError(405, 'Method not allowed', html`<h1>Method not allowed</h1>`);
    }
    if (url.pathname === '/') return send(res, 200, home());
    if (url.pathname === '/connect') return connect(url, res);
    if (url.pathname === '/callback') return callback(req, url, res);
    const site = /^\/sites\/([^/]+)$/.exec(url.pathname)?.[1];
    if (site && WEBSITE_ID.test(site)) return send(res, 200, await products(site));
    throw new HttpError(
      404,
      'Not found',
      html`<h1>Not found</h1>
        <p><a href="/">Home</a></p>`,
    );
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) return send(res, err.status, page(err.title, err.body));
      // The name and message only: no stack, and nothing of tokens or secrets, which the SDK's
      // errors do not carry. The page shows Emporium's own message (it names the problem, e.g.
      // "invalid_grant: code expired"); anything else stays in the log.
      const problem = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      console.error(`connect-app: ${req.method} ${req.url?.split('?')[0]} failed: ${problem}`);
      const fromEmporium = err instanceof EmporiumError;
      send(
        res,
        fromEmporium ? 502 : 500,
        page(
          'Something went wrong',
          html`<h1>Something went wrong</h1>
            <p>
              ${
                fromEmporium
                  ? html`Emporium answered:
                    ${err.message}${err.contextId ? ` (context id ${err.contextId})` : ''}`
                  : 'The app failed to handle this request.'
              }
            </p>
            <p><a href="/">Back</a> · <a href="/connect">Connect again</a></p>`,
        ),
      );
    });
  });
  server.listen(config.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    events,
    recentOrders: (websiteId) => [...(orders.get(websiteId) ?? [])],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
  };

  function cookie(name: string, value: string, maxAge: number): string {
    return `${name}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secureCookie ? '; Secure' : ''}`;
  }
}

function cookies(req: http.IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) jar.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return jar;
}

function send(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // Inline style only; no script, no framing. The callback's URL holds a code: send no Referer.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

function redirect(res: http.ServerResponse, location: string) {
  res.writeHead(303, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end();
}
