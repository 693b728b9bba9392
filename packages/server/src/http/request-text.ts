import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../shared/errors.ts';

/**
 * PostgreSQL text cannot hold the NUL character, so text carrying one is refused at the edge,
 * whatever part of the request brings it: no handler ever sees it, and no query fails on it.
 */
const NUL = '\u0000';

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object') {
    // Own enumerable keys, as Object.entries gives them, without its arrays (every request's params).
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (key.includes(NUL) || holdsNul((value as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}

/** Where the NUL is, as validation messages name fields: `variants[2].sku`. */
function nulPath(value: unknown, path: string): string {
  if (Array.isArray(value)) {
    const i = value.findIndex(holdsNul);
    return nulPath(value[i], `${path}[${i}]`);
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes(NUL)) return at;
      if (holdsNul(inner)) return nulPath(inner, at);
    }
  }
  return path;
}

/** Refuses text with a NUL: 400 naming `field`. */
export function refuseNul(text: string, field: string): void {
  if (text.includes(NUL)) throw nulError(field);
}

function nulError(field: string): ValidationError {
  return new ValidationError(`${field}: must not contain the NUL character (U+0000)`);
}

/**
 * Checks path parameters, query and body of every route, after parsing and before validation.
 * A callback hook, not an async one: every request runs it, and a promise each costs more than
 * the check (bench/README.md, "Get by id").
 */
export function registerTextCheck(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    for (const part of [request.params, request.query, request.body]) {
      if (holdsNul(part)) return done(nulError(nulPath(part, '') || 'body'));
    }
    done();
  });
}
