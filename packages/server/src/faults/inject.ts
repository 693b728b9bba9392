import { basicCredentials } from '../http/basic-credentials.ts';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Credential } from '../http/credential.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Clock } from '../shared/clock.ts';
import { DomainError, OAuthError, RateLimited, ServiceUnavailable } from '../shared/errors.ts';
import type { FaultRules, LiveRule } from './fault-rules.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault a rule injected into this request ('status 503', 'latency 800ms', 'reset', 'slow body'). */
    injectedFault?: string;
  }
}

/** A 500, 502 or 504 of a rule, in the API's error body. */
class InjectedServerError extends DomainError {
  readonly type = 'SERVER_ERROR';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, null);
  }
}

/** Chunks a slow body is sent in, spread over the rule's time. */
const SLOW_CHUNKS = 20;

/** The time a slow body takes, by request (set in the hook that picked it, read as the answer leaves). */
const slowBodies = new WeakMap<FastifyRequest, number>();

export interface InjectDeps {
  faults: FaultRules;
  metrics: Metrics;
  clock: Clock;
}

/** What a request is matched on: its website (none at the token endpoint) and credential or app. */
interface Caller {
  websiteId?: string;
  credential?: Credential;
  clientId?: string;
}

/**
 * Applies the fault rules to the API's requests (registered in the authenticated scope of app.ts,
 * after the authentication and the scope check, so the website and the credential are known).
 * A website without rules costs one map lookup.
 */
export function registerApiFaults(app: FastifyInstance, deps: InjectDeps): void {
  app.addHook('onRequest', (request, reply, done) => {
    const credential = request.credential;
    if (!credential) return done();
    if (deps.faults.isReady && !deps.faults.ofWebsite(credential.websiteId)) return done();
    const caller = { websiteId: credential.websiteId, credential };
    inject(deps, request, reply, caller, 'api').then(() => done(), done);
  });
  registerSlowBodies(app);
}

/**
 * Applies the rules narrowed to an app to its token requests: a preHandler and an onSend hook of
 * the token endpoint's route (`path`), added as the route is declared, so the endpoint's own
 * checks (User-Agent, rate limit, body) come first and its error handler answers in RFC 6749's
 * shape. The client id is read from the request's Basic credentials, as presented. The website of
 * the grant is known only once the grant is read, so rules of a whole website do not apply here.
 */
export function registerTokenFaults(app: FastifyInstance, deps: InjectDeps, path: string): void {
  const hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const clientId = basicCredentials(request.headers.authorization)?.clientId;
    if (!clientId) return done();
    if (deps.faults.isReady && !deps.faults.ofClient(clientId)) return done();
    inject(deps, request, reply, { clientId }, 'token').then(() => done(), done);
  };
  app.addHook('onRoute', (route) => {
    if (route.url !== path) return;
    route.preHandler = [route.preHandler ?? [], hook].flat();
    route.onSend = [route.onSend ?? [], slowBody].flat();
  });
}

/** Finds the first rule that picks the request and applies it; resolves when the request may go on. */
async function inject(
  deps: InjectDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  at: 'api' | 'token',
): Promise<void> {
  await deps.faults.load();
  const rules = caller.clientId
    ? deps.faults.ofClient(caller.clientId)
    : deps.faults.ofWebsite(caller.websiteId!);
  if (!rules) return;
  const path = request.url.split('?')[0] ?? '/';
  for (const rule of rules) {
    if (!matches(rule, request.method, path, caller)) continue;
    if (rule.exhausted) continue;
    const until = rule.row.until;
    if (until && deps.clock.now(rule.row.website_id).getTime() >= until.getTime()) continue;
    // The Nth matching request draws the Nth number, whatever it decides.
    const picked = rule.row.probability >= 1 ? (rule.draw(), true) : rule.draw() < rule.row.probability;
    if (!picked) continue;
    if (!(await deps.faults.take(rule))) continue;
    return apply(deps, rule, request, reply, at);
  }
}

function matches(rule: LiveRule, method: string, path: string, caller: Caller): boolean {
  const row = rule.row;
  if (row.method && row.method !== method) return false;
  if (!rule.pattern.test(path)) return false;
  if (caller.clientId) return row.client_id === caller.clientId;
  const credential = caller.credential!;
  if (row.client_id && (credential.kind !== 'access_token' || credential.clientId !== row.client_id))
    return false;
  if (row.api_key_id && (credential.kind !== 'api_key' || credential.id !== row.api_key_id)) return false;
  return true;
}

async function apply(
  deps: InjectDeps,
  rule: LiveRule,
  request: FastifyRequest,
  reply: FastifyReply,
  at: 'api' | 'token',
): Promise<void> {
  const row = rule.row;
  const id = row.id;
  switch (row.effect) {
    case 'status': {
      const status = row.status!;
      request.injectedFault = `status ${status}`;
      deps.metrics.faultInjected('status');
      throw at === 'token'
        ? tokenError(status, row.retry_after_s, id)
        : apiError(status, row.retry_after_s, id);
    }
    case 'latency': {
      const min = row.min_ms!;
      const max = row.max_ms!;
      const ms = min === max ? min : min + Math.floor(rule.span() * (max - min + 1));
      request.injectedFault = `latency ${ms}ms`;
      deps.metrics.faultInjected('latency');
      await new Promise((resolve) => setTimeout(resolve, ms));
      return;
    }
    case 'reset': {
      request.injectedFault = 'reset';
      deps.metrics.faultInjected('reset');
      // No answer at all: the client sees its connection closed.
      reply.hijack();
      request.raw.socket?.destroy();
      return;
    }
    case 'slow_body': {
      request.injectedFault = 'slow body';
      deps.metrics.faultInjected('slow_body');
      slowBodies.set(request, row.min_ms!);
    }
  }
}

function apiError(status: number, retryAfter: number | null, id: string): DomainError {
  const said = `injected fault ${id}`;
  if (status === 429) return new RateLimited(`too many requests (${said}); retry later`, retryAfter ?? 1);
  if (status === 503) return new ServiceUnavailable(`the service is unavailable (${said}); retry shortly`);
  return new InjectedServerError(status, `something went wrong on our side (${said})`);
}

function tokenError(status: number, retryAfter: number | null, id: string): OAuthError {
  const said = `injected fault ${id}`;
  if (status === 429)
    return new OAuthError('temporarily_unavailable', `too many requests (${said})`, 429, retryAfter ?? 1);
  if (status === 503) return new OAuthError('temporarily_unavailable', `unavailable (${said})`, 503);
  return new OAuthError('server_error', `something went wrong on our side (${said})`, status);
}

/** The answer of a request picked for a slow body leaves in small chunks over the rule's time. */
function registerSlowBodies(app: FastifyInstance): void {
  app.addHook('onSend', slowBody);
}

function slowBody(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
): void {
  const ms = request.injectedFault === 'slow body' ? slowBodies.get(request) : undefined;
  if (ms === undefined || (typeof payload !== 'string' && !Buffer.isBuffer(payload)))
    return done(null, payload);
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  reply.header('content-length', body.length);
  done(null, slowly(body, ms));
}

function slowly(body: Buffer, ms: number): Readable {
  const chunks = Math.max(1, Math.min(SLOW_CHUNKS, body.length));
  const size = Math.ceil(body.length / chunks);
  const interval = ms / chunks;
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const stream = new Readable({
    read() {},
    destroy(error, callback) {
      clearTimeout(timer);
      callback(error);
    },
  });
  const next = () => {
    if (sent >= body.length) {
      stream.push(null);
      return;
    }
    stream.push(body.subarray(sent, sent + size));
    sent += size;
    timer = setTimeout(next, interval);
  };
  next();
  return stream;
}
