import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { OAuthError } from '../shared/errors.ts';

/** A token request is a few short fields; anything larger is refused before it is parsed. */
export const TOKEN_BODY_LIMIT = 16 * 1024;

const invalid = (description: string) => new OAuthError('invalid_request', description);

/** The keys of a flat JSON object, in order, repeats included (JSON.parse keeps only the last). */
function jsonKeys(text: string): string[] {
  const token = /\s*("(?:[^"\\]|\\.)*"|[{}:,])/y;
  const keys: string[] = [];
  let expectKey = false;
  for (let match = token.exec(text); match; match = token.exec(text)) {
    const value = match[1]!;
    if (value === '{' || value === ',') expectKey = true;
    else if (value.startsWith('"') && expectKey) {
      keys.push(JSON.parse(value) as string);
      expectKey = false;
    }
  }
  return keys;
}

function fields(entries: [string, unknown][], keys: string[]): Record<string, string> {
  const repeated = keys.find((key, i) => keys.indexOf(key) !== i);
  if (repeated !== undefined) throw invalid(`${repeated}: given more than once`);
  const result: Record<string, string> = {};
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw invalid(`${key}: must be a string`);
    result[key] = value;
  }
  return result;
}

/**
 * The token endpoint's bodies (api-details 8): JSON or form-encoded, the same rules for both,
 * parsed into string fields. Values that are not strings and keys given twice are
 * `invalid_request`, as is any other content type.
 */
export function registerTokenBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    let parsed: unknown;
    try {
      parsed = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return done(invalid('body: not valid JSON'), undefined);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return done(invalid('body: must be a JSON object'), undefined);
    }
    try {
      done(null, fields(Object.entries(parsed), jsonKeys(text)));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const entries = [...new URLSearchParams(body as string)];
      try {
        done(
          null,
          fields(
            entries,
            entries.map(([key]) => key),
          ),
        );
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}
