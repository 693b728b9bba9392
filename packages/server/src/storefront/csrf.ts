import '@fastify/cookie';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden } from '../shared/errors.ts';
import type { Html } from '../pages/html.ts';
import { csrfInput, presentedCsrf } from '../pages/forms.ts';

/**
 * CSRF protection of the store's forms. Shoppers have no session, so each browser gets a random
 * token in an HttpOnly, SameSite=Lax cookie, and every form carries the same token in a hidden
 * field: another site can make a browser post, but cannot read the token to put in the form.
 */
export const STORE_COOKIE = 'emporium_store';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A year: the token guards forms only, it identifies nobody. */
const COOKIE_SECONDS = 365 * 24 * 3600;

declare module 'fastify' {
  interface FastifyRequest {
    /** This browser's store CSRF token, set by the store plugin before any handler runs. */
    storeCsrf: string;
  }
}

/** The browser's token from its cookie, or a new one sent in a cookie now. */
export function loadStoreCsrf(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const presented = request.cookies[STORE_COOKIE];
  if (presented && TOKEN.test(presented)) return presented;
  const token = randomBytes(32).toString('base64url');
  reply.setCookie(STORE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/s/',
    maxAge: COOKIE_SECONDS,
  });
  return token;
}

/** The hidden field every store form carries. */
export function csrfField(request: FastifyRequest): Html {
  return csrfInput(request.storeCsrf);
}

/** True when the form's token is this browser's cookie token. */
export function storeCsrfValid(request: FastifyRequest): boolean {
  const presented = presentedCsrf(request);
  const cookie = request.cookies[STORE_COOKIE];
  if (typeof presented !== 'string' || !cookie || !TOKEN.test(cookie)) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(cookie);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Call first in every store POST handler: a form without this browser's token is refused with
 * a 403 page, and nothing is done.
 */
export function requireStoreCsrf(request: FastifyRequest): void {
  if (!storeCsrfValid(request)) {
    throw new Forbidden(
      'This form has expired or was not sent from this store. Go back, reload the page and try again.',
    );
  }
}
