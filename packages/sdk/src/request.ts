/**
 * The one request function (architecture habit 9): every API call and every token request goes
 * through `Transport.request`. It builds the URL and headers, encodes and decodes JSON, bounds
 * each attempt with a timeout, retries what is safe to retry, and turns error answers into typed
 * errors. Platform APIs only (fetch, AbortController, Headers): it runs in Node 22, 24 and browsers.
 */
import {
  AbortError,
  ConflictError,
  ConnectionError,
  EmporiumError,
  TimeoutError,
  apiError,
  oauthError,
} from './errors.js';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;

export interface TransportOptions {
  /** Required by the server on every request (api-details 0; SEC-43 on the token endpoint). */
  userAgent: string;
  /** Defaults to the platform's `fetch`, looked up at each call. */
  fetch?: FetchLike;
  /** Time bound of one attempt, to the last byte of the body. Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** Backoff of network errors and 5xx: full jitter over min(max, base * 2^attempt). Defaults 500 ms, 8 s. */
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** A 429 asking to wait longer than this is thrown at once. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Testing hooks: the wait between attempts, and the jitter's random source. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface RequestSpec {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute URL. */
  url: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /** The Authorization header's value. */
  authorization?: string;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as multipart/form-data. */
  form?: FormData;
  /** Which error bodies to expect: the API's (api-details 1) or the token endpoint's (RFC 6749). */
  errors?: 'api' | 'oauth';
  /**
   * Safe to send again after a network error, a timeout or a 5xx. Default: GET, HEAD, PUT (a whole
   * replace: sent twice, the same result), DELETE, and requests with an Idempotency-Key header.
   * A 429 is retried whatever the method: the server refuses it before doing anything.
   */
  idempotent?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ResponseData<T = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON; undefined for an empty body (204). */
  body: T;
}

/** Per-call options every resource method takes last. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function abortError(signal: AbortSignal): AbortError {
  return new AbortError({
    status: 0,
    type: 'ABORTED',
    message: 'the request was aborted',
    cause: signal.reason,
  });
}

/** Retry-After in ms: delta-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export function withQuery(url: string, query: Record<string, QueryValue> | undefined): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.append(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `${url}${url.includes('?') ? '&' : '?'}${text}` : url;
}

const TIMED_OUT = Symbol('timed out');

/**
 * Node's fetch (undici) reports every network failure as TypeError('fetch failed') with the
 * reason in `cause`; a TypeError without one is a mistake in the request itself. Browsers give
 * network failures no cause, so the rule is only applied in Node.
 */
const IN_NODE =
  typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';

export class Transport {
  readonly userAgent: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly fetchImpl: FetchLike | undefined;
  private readonly baseDelay: number;
  private readonly maxDelay: number;
  private readonly maxRetryAfter: number;
  private readonly random: () => number;

  constructor(options: TransportOptions) {
    if (!options.userAgent?.trim())
      throw new TypeError('userAgent is required: the server refuses requests without one');
    this.userAgent = options.userAgent;
    this.fetchImpl = options.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 3;
    this.baseDelay = options.retryBaseDelayMs ?? 500;
    this.maxDelay = options.retryMaxDelayMs ?? 8_000;
    this.maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
  }

  /** Full jitter (the AWS Architecture Blog's "Exponential Backoff and Jitter"). */
  backoffMs(attempt: number): number {
    return Math.floor(this.random() * Math.min(this.maxDelay, this.baseDelay * 2 ** attempt));
  }

  async request<T = unknown>(spec: RequestSpec): Promise<ResponseData<T>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.userAgent,
      ...spec.headers,
    };
    if (spec.authorization) headers.authorization = spec.authorization;
    let body: string | FormData | undefined;
    if (spec.json !== undefined) {
      // JSON under its own type when the call names one (a PATCH's application/merge-patch+json).
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
      body = JSON.stringify(spec.json);
    } else if (spec.form) {
      body = spec.form; // fetch writes the multipart Content-Type with its boundary
    }
    const hasKey = Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
    const idempotent =
      spec.idempotent ??
      (spec.method === 'GET' ||
        spec.method === 'HEAD' ||
        spec.method === 'PUT' ||
        spec.method === 'DELETE' ||
        hasKey);
    const url = withQuery(spec.url, spec.query);
    const init: RequestInit = { method: spec.method, headers, body };
    // Local mistakes fail at once, never retried as if the network were at fault: no fetch, an
    // invalid URL or header value (these constructors throw the TypeError fetch would).
    const fetchImpl = this.fetchImpl ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new TypeError('no fetch function: pass `fetch` in the options (Node 18+ and browsers have one)');
    }
    new URL(url);
    new Headers(headers);
    // A DELETE retried after an attempt that may have reached the server (no answer, or a 5xx).
    let deleteMayHaveRun = false;

    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.maxRetries;
      let result: ResponseData;
      try {
        result = await this.attempt(fetchImpl, url, init, spec);
      } catch (error) {
        // No answer. Only a request that is safe to repeat is sent again.
        if (error instanceof ConnectionError && idempotent && retriesLeft) {
          deleteMayHaveRun = spec.method === 'DELETE';
          await this.sleep(this.backoffMs(attempt), spec.signal);
          continue;
        }
        throw error;
      }
      const { status } = result;
      if (status < 400) return result as ResponseData<T>;
      // The earlier attempt may have deleted it and its answer been lost: gone is what was asked.
      if (status === 404 && deleteMayHaveRun) {
        return { status: 204, headers: result.headers, body: undefined as T };
      }
      const wait = retryAfterMs(result.headers);
      const error =
        spec.errors === 'oauth'
          ? oauthError(status, result.body, result.headers)
          : apiError(status, result.body, result.headers, wait);
      if (retriesLeft && status === 429 && (wait ?? 0) <= this.maxRetryAfter) {
        await this.sleep(wait ?? this.backoffMs(attempt), spec.signal);
        continue;
      }
      if (retriesLeft && status >= 500 && idempotent) {
        deleteMayHaveRun = spec.method === 'DELETE';
        await this.sleep(this.backoffMs(attempt), spec.signal);
        continue;
      }
      // The first request with this Idempotency-Key is still running (api-details 7): retry shortly.
      if (
        retriesLeft &&
        hasKey &&
        error instanceof ConflictError &&
        error.subtype === 'CONCURRENT_MODIFICATION'
      ) {
        await this.sleep(this.backoffMs(attempt), spec.signal);
        continue;
      }
      throw error;
    }
  }

  /** One attempt, bounded by the timeout and the caller's signal, body read and parsed. */
  private async attempt(
    fetchImpl: FetchLike,
    url: string,
    init: RequestInit,
    spec: RequestSpec,
  ): Promise<ResponseData> {
    const outer = spec.signal;
    if (outer?.aborted) throw abortError(outer);
    const controller = new AbortController();
    const onAbort = () => controller.abort(outer!.reason);
    outer?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
    try {
      const response = await fetchImpl(url, { ...init, signal: controller.signal });
      const text = await response.text();
      let body: unknown = undefined;
      if (text !== '') {
        const type = response.headers.get('content-type') ?? '';
        if (type.includes('json')) {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        } else {
          body = text;
        }
      }
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      if (error instanceof EmporiumError) throw error;
      if (controller.signal.aborted && controller.signal.reason === TIMED_OUT) {
        throw new TimeoutError({
          status: 0,
          type: 'TIMEOUT',
          message: `${init.method} ${url}: no answer within ${timeoutMs} ms`,
          cause: error,
        });
      }
      if (outer?.aborted) throw abortError(outer);
      if (IN_NODE && error instanceof TypeError && error.cause === undefined) throw error; // see IN_NODE
      throw new ConnectionError({
        status: 0,
        type: 'CONNECTION_ERROR',
        message: `${init.method} ${url}: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }
}
