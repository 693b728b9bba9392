import { basicCredentials } from '../http/basic-credentials.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { ShiftedClock } from '../shared/clock.ts';
import { storedBody } from './redact.ts';
import { tokenWebsites } from './token-websites.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault injected into this request (`status 503`, `latency 800ms`, `reset`, `slow body`). */
    injectedFault?: string;
    /** The response body as sent (onSend), kept by reference for the request log. */
    apiLogPayload?: unknown;
  }
  interface FastifyInstance {
    /** The request log's buffer: `flush()` writes what it holds (tests, the harness). */
    apiLog: ApiLog;
  }
}

/** At most this many lines wait for the database; beyond, new lines are dropped and counted. */
export const MAX_BUFFERED = 20_000;
/** Lines a multi-row INSERT writes at most, and the count that writes at once. */
export const BATCH_ROWS = 500;
/** How long a line waits, at most, before its batch is written. */
export const FLUSH_MS = 200;
/**
 * Lines an instance keeps at once before its rate (API_LOG_LINES_PER_SECOND, config.ts) applies:
 * a test suite's requests fit in it; beyond the rate, lines are dropped and counted.
 */
export const BURST_LINES = 2000;

/** One request as the hooks saw it: references only, turned into a row when its batch is written. */
interface Line {
  /** Unset for a token request until its grant is found at writing time. */
  websiteId: string | undefined;
  /** The website's time (the service's for a token request, shifted at writing time). */
  at: number;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  contextId: string;
  kind: 'api_key' | 'oauth';
  credentialId: string;
  fault: string | undefined;
  requestBody: unknown;
  responseBody: unknown;
}

export interface ApiLogOptions {
  db: Db;
  clock: ShiftedClock;
  metrics?: Metrics;
  /** false: nothing is recorded (API_LOG=false). */
  enabled?: boolean;
  /** Lines kept a second after the burst (config.ts, DEFAULT_API_LOG_LINES_PER_SECOND). */
  linesPerSecond: number;
  /** Told of a batch that could not be written (it is dropped). */
  onError?: (error: unknown, lines: number) => void;
}

const MULTIPART = /^multipart\//i;

/** The request's body as the log keeps it: an upload only as its size. */
function requestBody(request: FastifyRequest): unknown {
  const type = request.headers['content-type'];
  if (type !== undefined && MULTIPART.test(type)) {
    return `[multipart upload, ${Number(request.headers['content-length'] ?? 0)} bytes]`;
  }
  return request.body;
}

/**
 * The request log of every website (issue 33): each API request and token request, kept in
 * memory by two callback hooks (no promise, no work on the request path beyond a few references)
 * and written by one multi-row INSERT every 200 ms or 500 lines. Secrets are removed and bodies
 * cut when a batch is written (redact.ts). A batch the database refuses is dropped and counted,
 * never retried: the log must not hold responses up or grow without bound.
 */
export class ApiLog {
  private pending: Line[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Lines lost: over the rate, the buffer full, or their batch refused. */
  dropped = 0;
  /** Lines that may be kept now (a token bucket of linesPerSecond), and when it was counted. */
  private allowance = BURST_LINES;
  private refilled = Date.now();
  private readonly linesPerMs: number;

  constructor(private readonly options: ApiLogOptions) {
    options.metrics?.apiLogDroppedFrom(() => this.dropped);
    this.linesPerMs = options.linesPerSecond / 1000;
  }

  get enabled(): boolean {
    return this.options.enabled !== false;
  }

  /** The API's requests: those with a credential (an unknown one has no website to be logged under). */
  registerApi(app: FastifyInstance): void {
    if (!this.enabled) return;
    this.keepPayload(app);
    app.addHook('onResponse', (request, reply, done) => {
      const credential = request.credential;
      if (credential && this.take()) {
        const websiteId = credential.websiteId;
        const kind = credential.kind === 'api_key' ? 'api_key' : 'oauth';
        const id = credential.kind === 'api_key' ? credential.id : credential.clientId;
        this.push(
          this.line(request, reply, websiteId, this.options.clock.now(websiteId).getTime(), kind, id),
        );
      }
      done();
    });
  }

  /**
   * The token endpoint's requests, by the client of their Basic credentials; the website is the
   * grant's, found when the batch is written (by the tokens issued, or the code or refresh token
   * presented); a request naming none is not kept.
   */
  registerToken(app: FastifyInstance): void {
    if (!this.enabled) return;
    this.keepPayload(app);
    app.addHook('onResponse', (request, reply, done) => {
      const clientId = basicCredentials(request.headers.authorization)?.clientId;
      if (clientId && this.take()) {
        this.push(
          this.line(request, reply, undefined, this.options.clock.now().getTime(), 'oauth', clientId),
        );
      }
      done();
    });
  }

  /** Writes every line held now (and waits for the batches already being written). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.pending;
    this.pending = [];
    if (lines.length) this.writing = this.writing.then(() => this.write(lines));
    return this.writing;
  }

  /**
   * Keeps the answer's body for the line, only while lines are being kept: under load the
   * allowance is spent and a request costs the hooks a comparison. The property is declared on
   * every request, so setting it never changes the requests' shape.
   */
  private keepPayload(app: FastifyInstance): void {
    if (!app.hasRequestDecorator('apiLogPayload')) app.decorateRequest('apiLogPayload', undefined);
    app.addHook('onSend', (request, _reply, payload, done) => {
      if (this.refill() >= 1) request.apiLogPayload = payload;
      done(null, payload);
    });
  }

  /** The allowance now, refilled for the time since it was last counted. */
  private refill(): number {
    const now = Date.now();
    this.allowance = Math.min(BURST_LINES, this.allowance + (now - this.refilled) * this.linesPerMs);
    this.refilled = now;
    return this.allowance;
  }

  /** Whether a line may be kept now (taking it from the allowance); else it is dropped and counted. */
  private take(): boolean {
    if (this.refill() < 1 || this.pending.length >= MAX_BUFFERED) {
      this.drop(1);
      return false;
    }
    this.allowance -= 1;
    return true;
  }

  private line(
    request: FastifyRequest,
    reply: FastifyReply,
    websiteId: string | undefined,
    now: number,
    kind: Line['kind'],
    credentialId: string,
  ): Line {
    const latencyMs = reply.elapsedTime;
    return {
      websiteId,
      at: now,
      method: request.method,
      path: request.url,
      status: reply.statusCode,
      latencyMs,
      contextId: request.id,
      kind,
      credentialId,
      fault: request.injectedFault,
      requestBody: requestBody(request),
      responseBody: request.apiLogPayload,
    };
  }

  /** Holds a line `take()` admitted, writing its batch when full or FLUSH_MS later. */
  private push(line: Line): void {
    this.pending.push(line);
    if (this.pending.length >= BATCH_ROWS) void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  private drop(lines: number): void {
    this.dropped += lines;
  }

  private async write(lines: Line[]): Promise<void> {
    for (let start = 0; start < lines.length; start += BATCH_ROWS) {
      const batch = lines.slice(start, start + BATCH_ROWS);
      try {
        await this.insert(batch);
      } catch (error) {
        this.drop(batch.length);
        this.options.onError?.(error, batch.length);
      }
    }
  }

  private async insert(batch: Line[]): Promise<void> {
    const { db, clock } = this.options;
    const websites = await tokenWebsites(db, batch);
    const rows = [];
    for (const line of batch) {
      const found = line.websiteId === undefined;
      const websiteId = line.websiteId ?? websites.get(line);
      if (websiteId === undefined) continue;
      const request = storedBody(line.requestBody);
      const response = storedBody(line.responseBody);
      rows.push({
        website_id: websiteId,
        at: new Date(found ? line.at + clock.shiftOf(websiteId) : line.at),
        method: line.method,
        path: line.path,
        status: line.status,
        latency_ms: line.latencyMs,
        context_id: line.contextId,
        credential_kind: line.kind,
        credential_id: line.credentialId,
        fault: line.fault ?? null,
        request_body: request.text,
        request_body_cut: request.cut,
        response_body: response.text,
        response_body_cut: response.cut,
      });
    }
    if (rows.length) await db.insertInto('api_requests').values(rows).execute();
  }
}
