import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationError } from '../shared/errors.ts';

/** Far deeper than any body of this API; every walk of a body may then recurse safely (AB-5). */
const MAX_DEPTH = 64;

/** Whether arrays and objects nest deeper than MAX_DEPTH, brackets inside strings aside. */
function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      // [ or {
      if (++depth > MAX_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--; // ] or }
  }
  return false;
}

/**
 * JSON bodies: an empty body counts as none (many clients send `Content-Type: application/json`
 * on a DELETE), prototype-poisoning keys are refused, and so is nesting deeper than MAX_DEPTH.
 */
export function registerJsonParser(app: FastifyInstance): void {
  // JSON only: any other body type is a 415 with subtype INVALID_CONTENT_TYPE.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
}

/** The JSON body parser, for a route plugin that takes JSON under another type (merge-patch+json). */
export function parseJsonBody(
  _request: unknown,
  body: string | Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  const text = (body as string).trim();
  if (text === '') return done(null, undefined);
  if (tooDeep(text)) {
    return done(new ValidationError(`body: nested deeper than ${MAX_DEPTH} levels`, null), undefined);
  }
  try {
    done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
  } catch {
    done(new ValidationError('body: not valid JSON', null), undefined);
  }
}
