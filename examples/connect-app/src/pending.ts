import { randomBytes } from 'node:crypto';

/** The state and PKCE verifier of one authorization the browser is away doing at Emporium. */
export interface PendingAuthorization {
  state: string;
  codeVerifier: string;
}

/** Emporium gives the owner ten minutes on the consent page; a little more here. */
const LIFETIME_MS = 15 * 60_000;
/** A bound on memory whatever a client does: the oldest go first. */
const MAX_PENDING = 10_000;

/**
 * Pending authorizations, server-side, keyed by a random value the browser holds in a cookie.
 * Neither the state nor the verifier ever reaches the browser other than in the authorize URL
 * (state) and nowhere (verifier). Each is taken once: a callback replayed finds nothing.
 */
export class PendingAuthorizations {
  private readonly entries = new Map<string, PendingAuthorization & { expires: number }>();

  /** Keeps `value`; returns the cookie value that finds it again. */
  add(value: PendingAuthorization): string {
    this.prune();
    const key = randomBytes(32).toString('base64url');
    this.entries.set(key, { ...value, expires: Date.now() + LIFETIME_MS });
    return key;
  }

  take(key: string): PendingAuthorization | undefined {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (!entry || entry.expires < Date.now()) return undefined;
    return { state: entry.state, codeVerifier: entry.codeVerifier };
  }

  private prune(): void {
    const now = Date.now();
    // Map order is insertion order, so the oldest (and so the first to expire) come first.
    for (const [key, entry] of this.entries) {
      if (entry.expires >= now && this.entries.size < MAX_PENDING) break;
      this.entries.delete(key);
    }
  }
}
