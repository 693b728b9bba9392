/**
 * The app's side of the OAuth 2.0 authorization-code flow (spec, Authentication 2; api-details 8):
 * the authorize URL with state (and PKCE), the callback's checks, and the token endpoint.
 */
import { base64, base64url, randomBytes, sha256, stringsEqual, utf8 } from './encoding.js';
import { AccessDenied, OAuthError, StateMismatch } from './errors.js';
import { Transport, type CallOptions, type FetchLike, type TransportOptions } from './request.js';
import type { TokenSet } from './tokens.js';

export const AUTHORIZE_PATH = '/api/1/login/oauth/provider/authorize';
export const TOKEN_PATH = '/api/1/login/oauth/provider/tokens';

/** The scopes of the spec and the platform's profiles pair. A write scope implies its `.read` scope. */
export type Scope =
  | 'website.orders'
  | 'website.orders.read'
  | 'website.transactions.read'
  | 'website.profiles'
  | 'website.profiles.read'
  | 'website.inventory'
  | 'website.inventory.read'
  | 'website.products'
  | 'website.products.read'
  | 'website.contacts'
  | 'website.contacts.read'
  | 'website.discounts'
  | 'website.discounts.read';

export interface EmporiumOAuthOptions extends Omit<TransportOptions, 'fetch'> {
  clientId: string;
  /** Never ship it to a browser: the token endpoint needs it, so exchange codes on a server. */
  clientSecret: string;
  /** The registered redirect URI, byte for byte. */
  redirectUri: string;
  /** The origin of the authorization server (the server's AUTH_URL), e.g. https://login.example.com. */
  authUrl: string;
  userAgent: string;
  fetch?: FetchLike;
  /** The clock for token expiry times; Date.now by default. */
  now?: () => number;
}

export interface AuthorizeUrlOptions {
  scopes: readonly (Scope | (string & {}))[];
  redirectUri?: string;
  /**
   * Defaults to 32 random bytes, base64url (crypto.getRandomValues). One given must be 32 to 500
   * characters of A-Z a-z 0-9 . _ ~ - (STATE_PATTERN), else a TypeError.
   */
  state?: string;
  /** `access_type=offline`: a refresh token will be issued. */
  offline?: boolean;
  /** Ask for this website only (the owner must own it); otherwise the owner picks one. */
  websiteId?: string;
  /**
   * PKCE with S256 (RFC 7636), on unless `false`: keep the returned codeVerifier and pass it to
   * exchangeCode.
   */
  pkce?: boolean;
}

export interface AuthorizationRequest {
  url: string;
  /** Keep it (e.g. in the user's session) and pass it to handleCallback. */
  state: string;
  /** Unless `pkce: false`: keep it and pass it to exchangeCode. */
  codeVerifier?: string;
  codeChallenge?: string;
}

/** The token endpoint's success body (api-details 8). */
interface TokenResponse {
  token_type: string;
  access_token: string;
  access_token_expires_at: string;
  expires_in?: number;
  refresh_token?: string;
  refresh_token_expires_at?: string;
}

/**
 * What a caller-supplied state must look like: 32+ characters so it cannot be guessed (the CSRF
 * defence of RFC 6749 10.12), and only unreserved characters (RFC 3986), which the server accepts.
 */
const STATE_PATTERN = /^[A-Za-z0-9._~-]{32,500}$/;

/** RFC 6749 2.3.1: client id and secret are form-encoded before the Basic encoding. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

export class EmporiumOAuth {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly authUrl: string;
  readonly transport: Transport;
  private readonly basic: string;
  private readonly now: () => number;

  constructor(options: EmporiumOAuthOptions) {
    for (const name of ['clientId', 'clientSecret', 'redirectUri', 'authUrl'] as const) {
      if (!options[name]) throw new TypeError(`EmporiumOAuth: ${name} is required`);
    }
    this.clientId = options.clientId;
    this.redirectUri = options.redirectUri;
    this.authUrl = options.authUrl.replace(/\/+$/, '');
    this.transport = new Transport(options);
    this.now = options.now ?? Date.now;
    this.basic = `Basic ${base64(utf8(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`))}`;
  }

  /**
   * The URL to send the owner to. Synchronous, PKCE included (its SHA-256 is computed in
   * JavaScript); awaiting the result is harmless.
   */
  authorizeUrl(options: AuthorizeUrlOptions): AuthorizationRequest {
    if (!options.scopes?.length) throw new TypeError('authorizeUrl: at least one scope is required');
    if (options.state !== undefined && !STATE_PATTERN.test(options.state)) {
      throw new TypeError(
        'authorizeUrl: state must be 32 to 500 characters of A-Z a-z 0-9 . _ ~ - ' +
          '(a shorter one is too weak to stop forged callbacks; other characters the server refuses)',
      );
    }
    const state = options.state ?? base64url(randomBytes(32));
    const url = new URL(this.authUrl + AUTHORIZE_PATH);
    const params = url.searchParams;
    params.set('client_id', this.clientId);
    params.set('redirect_uri', options.redirectUri ?? this.redirectUri);
    params.set('response_type', 'code');
    params.set('scope', options.scopes.join(','));
    params.set('state', state);
    if (options.offline) params.set('access_type', 'offline');
    if (options.websiteId) params.set('website_id', options.websiteId);
    const request: AuthorizationRequest = { url: '', state };
    // On by default (OAuth 2.1, RFC 9700 2.1.1): only an explicit `false` turns PKCE off.
    if (options.pkce !== false) {
      request.codeVerifier = base64url(randomBytes(32)); // 43 characters, RFC 7636 4.1
      request.codeChallenge = base64url(sha256(utf8(request.codeVerifier)));
      params.set('code_challenge', request.codeChallenge);
      params.set('code_challenge_method', 'S256');
    }
    request.url = url.toString();
    return request;
  }

  /**
   * Checks the redirect back from the consent page and returns its code. Deny
   * (`error=access_denied`, which carries no state): AccessDenied. Another `error`: OAuthError.
   * A state that is not the one sent (compared in constant time): StateMismatch. No code: OAuthError.
   */
  handleCallback(callbackUrl: string | URL, expected: { state: string }): { code: string; state: string } {
    const params = new URL(String(callbackUrl), 'http://callback.invalid').searchParams;
    const error = params.get('error');
    if (error === 'access_denied') throw new AccessDenied(params.get('error_description'));
    if (error) throw new OAuthError({ status: 0, error, errorDescription: params.get('error_description') });
    const state = params.get('state');
    if (!expected?.state || state === null || !stringsEqual(state, expected.state)) throw new StateMismatch();
    const code = params.get('code');
    if (!code)
      throw new OAuthError({ status: 0, error: 'invalid_request', errorDescription: 'code: missing' });
    return { code, state };
  }

  /**
   * The code for tokens. Never retried on a network error or 5xx: a code is single use, and a
   * second presentation revokes what the first one gave (api-details 8).
   */
  exchangeCode(
    code: string,
    options: { codeVerifier?: string; redirectUri?: string } & CallOptions = {},
  ): Promise<TokenSet> {
    return this.tokenRequest(
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: options.redirectUri ?? this.redirectUri,
        ...(options.codeVerifier !== undefined && { code_verifier: options.codeVerifier }),
      },
      false,
      options,
    );
  }

  /**
   * A refresh token for a new pair; store the new pair before using it. Retried like a GET: the
   * old refresh token stays valid until the new pair is first used, so a lost answer can be
   * asked for again (api-details 8, refresh rotation).
   */
  refresh(refreshToken: string | undefined, options: CallOptions = {}): Promise<TokenSet> {
    if (!refreshToken) {
      return Promise.reject(
        new OAuthError({
          status: 0,
          error: 'invalid_grant',
          errorDescription: 'no refresh token: ask for offline access',
        }),
      );
    }
    return this.tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken }, true, options);
  }

  private async tokenRequest(
    fields: Record<string, string>,
    idempotent: boolean,
    options: CallOptions,
  ): Promise<TokenSet> {
    const sentAt = this.now();
    const { body } = await this.transport.request<TokenResponse>({
      method: 'POST',
      url: this.authUrl + TOKEN_PATH,
      authorization: this.basic,
      json: fields,
      errors: 'oauth',
      idempotent,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    return tokenSet(body, sentAt);
  }
}

const secondsToMs = (value: string | undefined) =>
  value === undefined ? undefined : Math.round(Number.parseFloat(value) * 1000);

/**
 * The token response as a TokenSet on this machine's clock: the access token expires `expires_in`
 * seconds after the request was sent (never later than the server says, were the clocks equal),
 * and the refresh token shifted by the same difference between the clocks.
 */
export function tokenSet(body: TokenResponse, sentAt: number): TokenSet {
  if (typeof body?.access_token !== 'string') {
    throw new OAuthError({ status: 200, error: 'invalid_response', errorDescription: 'no access_token' });
  }
  const serverExpiry = secondsToMs(body.access_token_expires_at);
  const accessTokenExpiresAt =
    typeof body.expires_in === 'number' ? sentAt + body.expires_in * 1000 : (serverExpiry ?? sentAt);
  const skew = serverExpiry === undefined ? 0 : serverExpiry - accessTokenExpiresAt;
  const tokens: TokenSet = { accessToken: body.access_token, accessTokenExpiresAt };
  if (body.refresh_token) {
    tokens.refreshToken = body.refresh_token;
    const refreshExpiry = secondsToMs(body.refresh_token_expires_at);
    if (refreshExpiry !== undefined) tokens.refreshTokenExpiresAt = refreshExpiry - skew;
  }
  return tokens;
}
