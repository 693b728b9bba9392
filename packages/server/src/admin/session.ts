import '@fastify/cookie';
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden } from '../shared/errors.ts';
import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { digest, secretsEqual } from '../shared/secrets.ts';
import { deleteSession, findSessionOwner, insertSession } from '../sites/sessions.repo.ts';
import { presentedCsrf } from '../pages/forms.ts';

export const SESSION_COOKIE = 'emporium_session';
const SESSION_MS = 14 * 24 * 3600_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The browser behind a page request: its cookie token, the owner signed in with it, if any. */
export interface Browser {
  /** 256 random bits; a signed-in token's digest is in owner_sessions, an anonymous one nowhere. */
  token: string;
  owner?: { id: string; email: string };
  /** Every form carries it; derived from the token, so another browser's token never matches. */
  csrf: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    browser: Browser;
  }
}

export interface SessionDeps {
  db: Db;
  clock: Clock;
  /** The server's key for CSRF tokens. */
  csrfKey: Buffer;
  /** Cookies are `Secure` when the pages are served over https (AUTH_URL). */
  secure: boolean;
}

/**
 * Browser sessions of site owners (security GR-3): an HttpOnly, SameSite=Lax cookie holding a
 * random token, stored only as a digest; a new token at sign-in, and sign-out deletes it.
 */
export class Sessions {
  constructor(private readonly deps: SessionDeps) {}

  async load(request: FastifyRequest, reply: FastifyReply): Promise<Browser> {
    const token = request.cookies[SESSION_COOKIE];
    if (!token || !TOKEN.test(token)) return this.anonymous(reply);
    const owner = await findSessionOwner(this.deps.db, digest(token), this.deps.clock.now());
    return { token, csrf: this.csrf(token), ...(owner && { owner }) };
  }

  /** Signs the owner in on a new token, whatever token the browser had (no session fixation). */
  async signIn(reply: FastifyReply, owner: { id: string; email: string }): Promise<Browser> {
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await insertSession(this.deps.db, {
      token_digest: digest(token),
      owner_id: owner.id,
      created_at: now,
      expires_at: new Date(now.getTime() + SESSION_MS),
    });
    this.setCookie(reply, token);
    return { token, owner, csrf: this.csrf(token) };
  }

  async signOut(browser: Browser, reply: FastifyReply): Promise<void> {
    await deleteSession(this.deps.db, digest(browser.token));
    this.anonymous(reply);
  }

  csrfValid(browser: Browser, presented: unknown): boolean {
    return typeof presented === 'string' && secretsEqual(presented, browser.csrf);
  }

  private anonymous(reply: FastifyReply): Browser {
    const token = randomBytes(32).toString('base64url');
    this.setCookie(reply, token);
    return { token, csrf: this.csrf(token) };
  }

  private csrf(token: string): string {
    return createHmac('sha256', this.deps.csrfKey).update(token).digest('base64url');
  }

  private setCookie(reply: FastifyReply, token: string): void {
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.deps.secure,
      path: '/',
      maxAge: SESSION_MS / 1000,
    });
  }
}

/** A form post whose CSRF token is not this browser's: refused, nothing done (security GR-2). */
export function requireCsrf(deps: { sessions: Sessions }, request: FastifyRequest): void {
  if (!deps.sessions.csrfValid(request.browser, presentedCsrf(request))) {
    throw new Forbidden(
      'This form has expired or was not sent from this page. Go back, reload it and try again.',
    );
  }
}
