import { randomInt } from 'node:crypto';
import type { FaultRulesTable } from '../db/schema.ts';
import { ValidationError } from '../shared/errors.ts';

/*
 * The checks of a fault rule as given (faults.service.ts adds it): each part is checked before
 * anything is written, and a wrong one is named in the error as the field the caller gave.
 */

/** A rule as given by the CLI, the harness, the test controls and the owner page. */
export interface FaultInput {
  /** `METHOD /path` or `/path` (any method); `*` matches any run of characters. */
  match: string;
  /** Answer with this status (429, 500, 502, 503, 504) in the API's error body. */
  status?: number;
  /** With status 429: the Retry-After seconds (1 by default). */
  retryAfter?: number;
  /** Wait this long (ms), or a range `'200..900'`, then answer as usual. */
  latency?: number | string;
  /** Close the connection without an answer. */
  reset?: boolean;
  /** Send the real answer in small chunks over this many ms. */
  slowBody?: number;
  /** The share of matching requests picked, 0..1 (1 by default). */
  probability?: number;
  /** The seed of the rule's random numbers (a random one by default, shown in the list). */
  seed?: number;
  /** Only the first `count` faults. */
  count?: number;
  /** Until this time of the site (an RFC 3339 date-time). */
  until?: string;
  /** Only the requests of this app (its OAuth client id). */
  app?: string;
  /** Only the requests made with this API key (its id). */
  apiKey?: string;
}

export const FAULT_STATUSES = [429, 500, 502, 503, 504] as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The paths the API and the token endpoint are served under: a pattern must be able to reach one. */
export const API_PREFIXES = ['/1.0/', '/1.1/', '/v1/', '/v2/', '/api/1/login/oauth/'];
/** A minute: longer than any client would wait, shorter than the request timeout's scale. */
const MAX_MS = 60_000;
const MAX_RETRY_AFTER = 86_400;
const MAX_SEED = 2 ** 31 - 1;
const MAX_PATH = 300;
/** Rules a website holds at most: each request of the site runs through them. */
export const MAX_RULES = 50;

export function fail(field: string, message: string): never {
  throw new ValidationError(`${field}: ${message}`);
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(field, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/** `METHOD /path` or `/path`, as the method (null for any) and the path pattern. */
export function parseMatch(match: unknown): { method: string | null; path: string } {
  if (typeof match !== 'string' || !match.trim())
    fail('match', 'give a path pattern, as POST /1.0/commerce/orders*');
  const parts = match.trim().split(/\s+/);
  if (parts.length > 2) fail('match', 'a method and a path pattern, as POST /1.0/commerce/orders*');
  const [first, second] = parts as [string, string | undefined];
  const method = second === undefined ? null : first.toUpperCase();
  const path = second ?? first;
  if (method !== null && method !== '*' && method !== 'ANY' && !METHODS.has(method)) {
    fail('match', `unknown method ${first}; use one of ${[...METHODS].join(', ')}, or none for any`);
  }
  if (!path.startsWith('/')) fail('match', 'the path pattern must start with /');
  if (path.length > MAX_PATH) fail('match', `the path pattern is longer than ${MAX_PATH} characters`);
  if (/[\s?#]/.test(path)) fail('match', 'the path pattern is a path only: no spaces, query or fragment');
  const literal = path.split('*')[0]!;
  const reaches = API_PREFIXES.some(
    (prefix) => literal.startsWith(prefix) || (path.includes('*') && prefix.startsWith(literal)),
  );
  if (!reaches) {
    fail('match', `the pattern can match no API path; the API's paths start with ${API_PREFIXES.join(', ')}`);
  }
  return { method: method === '*' || method === 'ANY' ? null : method, path };
}

export function effectOf(
  input: FaultInput,
): Pick<FaultRulesTable, 'effect' | 'status' | 'retry_after_s' | 'min_ms' | 'max_ms'> {
  const given = [
    input.status !== undefined && 'status',
    input.latency !== undefined && 'latency',
    input.reset !== undefined && input.reset !== false && 'reset',
    input.slowBody !== undefined && 'slowBody',
  ].filter(Boolean);
  if (given.length !== 1) fail('effect', 'give exactly one of status, latency, reset, slowBody');
  if (input.retryAfter !== undefined && input.status !== 429) fail('retryAfter', 'only with status 429');
  const none = { status: null, retry_after_s: null, min_ms: null, max_ms: null };
  if (input.status !== undefined) {
    if (!(FAULT_STATUSES as readonly unknown[]).includes(input.status)) {
      fail('status', `must be one of ${FAULT_STATUSES.join(', ')}`);
    }
    const retryAfter =
      input.status === 429 ? integer(input.retryAfter ?? 1, 'retryAfter', 0, MAX_RETRY_AFTER) : null;
    return { ...none, effect: 'status', status: input.status, retry_after_s: retryAfter };
  }
  if (input.latency !== undefined) {
    const { min, max } = latencyRange(input.latency);
    return { ...none, effect: 'latency', min_ms: min, max_ms: max };
  }
  if (input.reset !== undefined) {
    if (input.reset !== true) fail('reset', 'true or absent');
    return { ...none, effect: 'reset' };
  }
  const ms = integer(input.slowBody, 'slowBody', 1, MAX_MS);
  return { ...none, effect: 'slow_body', min_ms: ms, max_ms: ms };
}

/** 800, '800' or '200..900'. */
function latencyRange(latency: number | string): { min: number; max: number } {
  if (typeof latency === 'number') {
    const ms = integer(latency, 'latency', 1, MAX_MS);
    return { min: ms, max: ms };
  }
  const m = /^(\d{1,6})(?:\.\.(\d{1,6}))?$/.exec(typeof latency === 'string' ? latency.trim() : '');
  if (!m) fail('latency', 'milliseconds, as 800, or a range, as 200..900');
  const min = integer(Number(m[1]), 'latency', 0, MAX_MS);
  const max = integer(Number(m[2] ?? m[1]), 'latency', 1, MAX_MS);
  if (min > max) fail('latency', `the range ${min}..${max} runs backwards; give the smaller first`);
  return { min, max };
}

/**
 * How often and how long the rule applies: its probability, its seed (a random one when none is
 * given), and its count; a count with an until, or an app with an API key, is refused.
 */
export function limitsOf(input: FaultInput): { probability: number; seed: number; count: number | null } {
  const probability = input.probability ?? 1;
  if (
    typeof probability !== 'number' ||
    !Number.isFinite(probability) ||
    probability < 0 ||
    probability > 1
  ) {
    fail('probability', 'a number from 0 to 1');
  }
  const seed = input.seed === undefined ? randomInt(MAX_SEED) : integer(input.seed, 'seed', 0, MAX_SEED);
  const count = input.count === undefined ? null : integer(input.count, 'count', 1, 1_000_000);
  if (count !== null && input.until !== undefined) fail('count', 'give count or until, not both');
  if (input.app !== undefined && input.apiKey !== undefined) fail('app', 'give app or apiKey, not both');
  return { probability, seed, count };
}
