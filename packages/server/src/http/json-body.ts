import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ValidationError } from '../errors.ts';

/**
 * JSON bodies: an empty body counts as none (many clients send `Content-Type: application/json`
 * on a DELETE), and prototype-poisoning keys are refused.
 */
export function registerJsonParser(app: FastifyInstance): void {
  // JSON only: any other body type is a 415 with subtype INVALID_CONTENT_TYPE.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new ValidationError('body: not valid JSON', null), undefined);
    }
  });
}
