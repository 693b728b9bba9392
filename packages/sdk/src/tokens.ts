/**
 * Token storage and the refresh rule of the spec (Authentication 4): before each call, if the
 * stored access token expires in 10 seconds or less, refresh first. The new pair is saved to the
 * store before its access token is used (README: "save it before using it"), and one refresh runs
 * at a time per store and key, however many calls wait for it.
 */
import { AbortError, OAuthError, ReauthorizationRequired } from './errors.js';
import type { EmporiumOAuth } from './oauth.js';

/** What an app keeps for one authorization (one website). Times are ms since the epoch. */
export interface TokenSet {
  accessToken: string;
  accessTokenExpiresAt: number;
  /** Only with offline access (`access_type=offline`). */
  refreshToken?: string;
  refreshTokenExpiresAt?: number;
}

/** Where tokens live between calls, by key (a website id, a user id...). Every method is async. */
export interface TokenStore {
  get(key: string): Promise<TokenSet | undefined>;
  set(key: string, tokens: TokenSet): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Tokens in this process's memory: lost on restart. Stores copies, never the caller's objects. */
export class MemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, TokenSet>();
  async get(key: string): Promise<TokenSet | undefined> {
    const found = this.tokens.get(key);
    return found && { ...found };
  }
  async set(key: string, tokens: TokenSet): Promise<void> {
    this.tokens.set(key, { ...tokens });
  }
  async delete(key: string): Promise<void> {
    this.tokens.delete(key);
  }
}

/** spec, Authentication 4: refresh when the access token expires in 10 seconds or less. */
export const REFRESH_MARGIN_MS = 10_000;

/** The refresh in flight, by store and key: shared by every client on the same store. */
const flights = new WeakMap<TokenStore, Map<string, Promise<TokenSet>>>();

export interface OAuthBinding {
  client: EmporiumOAuth;
  store: TokenStore;
  /** The store key of this authorization, e.g. the website id. */
  key: string;
}

/** The access token of one stored authorization, refreshed when due. */
export class OAuthSession {
  private readonly client: EmporiumOAuth;
  private readonly store: TokenStore;
  private readonly key: string;

  constructor(
    binding: OAuthBinding,
    private readonly now: () => number,
  ) {
    this.client = binding.client;
    this.store = binding.store;
    this.key = binding.key;
  }

  private fresh(tokens: TokenSet): boolean {
    return tokens.accessTokenExpiresAt - this.now() > REFRESH_MARGIN_MS;
  }

  private async stored(): Promise<TokenSet> {
    const tokens = await this.store.get(this.key);
    if (!tokens) throw new ReauthorizationRequired(`no tokens stored under "${this.key}"`);
    return tokens;
  }

  /**
   * The access token to send now: the stored one, or a new one when it expires within 10 s.
   * `refreshed` says it was just renewed, so a 401 for it means a second refresh would not help.
   * `signal` aborts the refresh request.
   */
  async accessToken(signal?: AbortSignal): Promise<{ token: string; refreshed: boolean }> {
    const tokens = await this.stored();
    if (this.fresh(tokens)) return { token: tokens.accessToken, refreshed: false };
    if (!tokens.refreshToken) {
      // Online access: no refresh token. Use the token while it lasts; the server says when not.
      if (tokens.accessTokenExpiresAt > this.now()) return { token: tokens.accessToken, refreshed: false };
      throw new ReauthorizationRequired('the access token expired and there is no refresh token');
    }
    return { token: (await this.refresh(tokens.accessToken, signal)).accessToken, refreshed: true };
  }

  /** After a 401 for `refused`: a new access token (refreshed unless another call already did). */
  async afterUnauthorized(refused: string, signal?: AbortSignal): Promise<string> {
    return (await this.refresh(refused, signal)).accessToken;
  }

  /**
   * Replaces `stale` with a new pair, once: a call that finds a refresh in flight for this store
   * and key waits for it; one that finds the store already holding another fresh access token
   * (refreshed by a flight that just ended) uses that.
   */
  private refresh(stale: string, signal?: AbortSignal): Promise<TokenSet> {
    let byKey = flights.get(this.store);
    if (!byKey) flights.set(this.store, (byKey = new Map()));
    const inFlight = byKey.get(this.key);
    if (inFlight) {
      // The flight carries the signal of the call that started it: if that call was aborted, a
      // waiter that was not starts its own refresh rather than failing with another's abort.
      return inFlight.catch((error: unknown) => {
        if (error instanceof AbortError && !signal?.aborted) return this.refresh(stale, signal);
        throw error;
      });
    }
    const flight = this.refreshNow(stale, signal).finally(() => {
      if (byKey.get(this.key) === flight) byKey.delete(this.key);
    });
    byKey.set(this.key, flight);
    return flight;
  }

  private async refreshNow(stale: string, signal: AbortSignal | undefined): Promise<TokenSet> {
    const current = await this.stored();
    if (current.accessToken !== stale && this.fresh(current)) return current;
    if (!current.refreshToken) {
      throw new ReauthorizationRequired('the access token was refused and there is no refresh token');
    }
    let next: TokenSet;
    try {
      next = await this.client.refresh(current.refreshToken, { signal });
    } catch (error) {
      // invalid_grant: expired, revoked or replayed refresh token (api-details 8). Nothing is
      // deleted from the store: the app decides what to do with a dead authorization.
      if (error instanceof OAuthError && error.error === 'invalid_grant') {
        throw new ReauthorizationRequired('the refresh token was refused (invalid_grant)', error);
      }
      throw error;
    }
    // Saved before use. If saving fails the old refresh token still works (its pair is not
    // confirmed until first used: api-details 8), so the next call can simply refresh again.
    await this.store.set(this.key, next);
    return next;
  }
}
