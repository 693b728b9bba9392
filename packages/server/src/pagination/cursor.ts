import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../shared/errors.ts';

/**
 * Opaque, tamper-evident page cursors (api-details 4): base64url JSON of the position and the
 * original filters, then an HMAC of it and of the list it pages. The key lives in the database so
 * every instance agrees. A cursor is good only for the list that made it: another list's cursor
 * fails the signature, so a list never reads a position of another shape.
 */
export interface CursorCodec {
  /** `list` names the list, e.g. 'products'; its cursors decode only there. */
  encode(list: string, payload: object): string;
  decode<T>(list: string, cursor: string): T;
}

const MAX_CURSOR_LENGTH = 2048;

export function cursorCodec(key: Buffer): CursorCodec {
  const sign = (list: string, body: string) =>
    createHmac('sha256', key).update(`${list}.${body}`).digest().subarray(0, 16);
  const invalid = () => new ValidationError('cursor: not a cursor returned by this API', 'INVALID_ARGUMENT');
  return {
    encode(list, payload) {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${sign(list, body).toString('base64url')}`;
    },
    decode(list, cursor) {
      if (cursor.length > MAX_CURSOR_LENGTH) throw invalid();
      const [body, signature, extra] = cursor.split('.');
      if (!body || !signature || extra !== undefined) throw invalid();
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(list, body);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      try {
        return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
    },
  };
}

export interface Pagination {
  hasNextPage: boolean;
  nextPageCursor: string | null;
  nextPageUrl: string | null;
}

/** The pagination object of a list response; `pageUrl` is the absolute URL of the list path. */
export function pagination(nextCursor: string | null, pageUrl: string): Pagination {
  if (!nextCursor) return { hasNextPage: false, nextPageCursor: null, nextPageUrl: null };
  return {
    hasNextPage: true,
    nextPageCursor: nextCursor,
    nextPageUrl: `${pageUrl}?cursor=${encodeURIComponent(nextCursor)}`,
  };
}
