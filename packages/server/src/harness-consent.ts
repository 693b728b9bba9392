import { randomBytes } from 'node:crypto';
import { AUTHORIZE_PATH, CONSENT_PATH } from './admin/consent.routes.ts';
import type { Db } from './db/database.ts';
import { HarnessError, OwnerBrowser } from './harness-browser.ts';
import { TOKEN_PATH } from './oauth/token.routes.ts';
import { isScope, SCOPES, type Scope } from './shared/scopes.ts';
import { findWebsite } from './sites/websites.repo.ts';

/*
 * The consent flow of the test harness (harness.ts): the website's owner follows an authorization
 * URL in a browser of its own (harness-browser.ts) and answers the consent page, and the app
 * redeems the code at the token endpoint. Everything goes over HTTP to the running instance, so
 * a harness grant meets every rule an app's real connect flow meets.
 */

export interface HarnessApp {
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
  codeChallenge?: string;
}

export interface Connection {
  code: string;
  state: string;
  /** The token endpoint's answer; absent with `codeOnly`. */
  tokens?: Record<string, unknown>;
}

/** The instance the flow runs against, and the owners it can sign in as: those it made, by owner id. */
export interface ConsentInstance {
  url: string;
  db: Db;
  owners: ReadonlyMap<string, { email: string; password: string }>;
}

/** What the harness sends as the app at the token endpoint, which wants a User-Agent. */
const USER_AGENT = 'emporium-testing';

/** The authorization URL the app would make, answered with Allow, then the code redeemed (Harness.connect). */
export async function connect(
  instance: ConsentInstance,
  app: HarnessApp,
  websiteId: string,
  options: ConnectOptions,
): Promise<Connection> {
  const scopes = options.scopes ?? SCOPES;
  const unknown = scopes.find((scope) => !isScope(scope));
  if (unknown)
    throw new HarnessError(`scopes: unknown scope "${unknown}"; the scopes are ${SCOPES.join(', ')}`);
  const state = options.state ?? randomBytes(8).toString('hex');
  const query = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope: (scopes as Scope[]).join(','),
    state,
    website_id: websiteId,
    ...(options.offline === false ? {} : { access_type: 'offline' }),
    ...(options.codeChallenge
      ? { code_challenge: options.codeChallenge, code_challenge_method: 'S256' }
      : {}),
  });
  const back = new URL(await approve(instance, `${AUTHORIZE_PATH}?${query}`, websiteId, {}));
  const code = back.searchParams.get('code');
  if (!code) throw new HarnessError(`the consent was not given: ${redirectError(back.href)}`);
  if (options.codeOnly) return { code, state };
  return { code, state, tokens: await redeem(instance.url, app, code) };
}

/** The owner's sign-in and answer to the consent page; where the browser goes back to (Harness.approve). */
export async function approve(
  instance: ConsentInstance,
  authorizationUrl: string,
  websiteId: string,
  { decision = 'allow' }: { decision?: 'allow' | 'deny' },
): Promise<string> {
  const website = await findWebsite(instance.db, websiteId);
  if (!website) throw new HarnessError(`website not found: ${websiteId}`);
  const owner = instance.owners.get(website.owner_id);
  if (!owner)
    throw new HarnessError(
      `the owner of ${websiteId} was not made by this instance, which cannot sign in as them`,
    );
  const url = new URL(authorizationUrl, instance.url);
  if (url.origin !== new URL(instance.url).origin || url.pathname !== AUTHORIZE_PATH) {
    throw new HarnessError(`not an authorization URL of this instance: ${authorizationUrl}`);
  }
  const browser = new OwnerBrowser(instance.url);
  await browser.signIn(owner.email, owner.password);
  const authorize = await browser.get(`${url.pathname}${url.search}`);
  const consentUrl = authorize.headers.get('location') ?? '';
  if (authorize.status !== 303 || !consentUrl.startsWith(CONSENT_PATH)) {
    throw new HarnessError(
      `the authorization request was refused: ${redirectError(consentUrl) ?? browser.pageText()}`,
    );
  }
  const consent = await browser.get(consentUrl);
  if (consent.status !== 200) throw new HarnessError(`the consent page refused: ${browser.pageText()}`);
  const answer = await browser.post(CONSENT_PATH, {
    request: browser.hidden('request'),
    website_id: websiteId,
    decision,
  });
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location) {
    throw new HarnessError(`the consent page did not answer: ${browser.pageText()}`);
  }
  return new URL(location, instance.url).href;
}

/** The code exchanged at the token endpoint with the app's credentials, as the app would. */
async function redeem(baseUrl: string, app: HarnessApp, code: string): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(TOKEN_PATH, baseUrl), {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
    },
    body: JSON.stringify({ grant_type: 'authorization_code', code, redirect_uri: app.redirectUri }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200)
    throw new HarnessError(`the token endpoint refused the code: ${JSON.stringify(body)}`);
  return body;
}

/** The `error_description` of a redirect back to the app, if it is one. */
function redirectError(location: string): string | undefined {
  if (!location) return undefined;
  const params = new URL(location, 'http://x').searchParams;
  const error = params.get('error');
  return error ? `${error}: ${params.get('error_description') ?? ''}`.trim() : undefined;
}
