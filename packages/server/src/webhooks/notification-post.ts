import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPublicAddress, literalAddress } from './addresses.ts';

export interface PostSettings {
  /** api-details 7: the receiver has 10 seconds to answer. */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE: private addresses and plain http, for local development and tests. */
  allowPrivate: boolean;
  /** Name resolution; the system's by default (tests swap in their own to rebind names). */
  lookup?: LookupFunction;
}

export interface PostResult {
  /** The receiver's status code; null when none came (refused, unreachable, timed out). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const USER_AGENT = 'Emporium-Webhooks/1.0';

// Connections are kept for the next notification to the same receiver.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * Resolves a name and refuses it if any of its addresses is not public (security AB-4). The
 * connection is made to the addresses returned here, so the address checked is the address
 * connected to: a name that answers a public address first and a private one later (DNS
 * rebinding) is checked on every connection.
 */
function guardedLookup(settings: PostSettings): LookupFunction {
  const resolve: LookupFunction = settings.lookup ?? (dns.lookup as LookupFunction);
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as dns.LookupAddress[];
      const refused = settings.allowPrivate ? undefined : list.find((a) => !isPublicAddress(a.address));
      if (refused || list.length === 0) {
        const reason = refused ? `resolves to a non-public address ${refused.address}` : 'has no address';
        return callback(Object.assign(new Error(`${hostname} ${reason}`), { code: 'EREFUSED' }), '', 0);
      }
      if (options.all) return callback(null, list as never);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Why an endpoint URL may not be posted to, or undefined; checked again on every post. */
export function endpointProblem(endpoint: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must be an https URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (allowPrivate) return undefined;
  const literal = literalAddress(url);
  if (literal && !isPublicAddress(literal)) return `names a non-public address ${literal}`;
  if (url.hostname === 'localhost' || url.hostname.endsWith('.localhost')) return 'names this machine';
  return undefined;
}

/**
 * POSTs one notification: no redirect is followed, any answer within the timeout counts (its
 * body is read and dropped), and nothing throws. The URL is checked again here, so a
 * subscription made under other settings is still refused.
 */
export function postNotification(
  endpoint: string,
  body: string,
  headers: Record<string, string>,
  settings: PostSettings,
): Promise<PostResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const problem = endpointProblem(endpoint, settings.allowPrivate);
  if (problem) return Promise.resolve({ statusCode: null, error: `endpointUrl ${problem}`, durationMs: 0 });
  const url = new URL(endpoint);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, durationMs: took() });
    };
    const request = transport.request(url, {
      method: 'POST',
      agent: agents[url.protocol as keyof typeof agents],
      lookup: guardedLookup(settings),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': USER_AGENT,
        ...headers,
      },
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${settings.timeoutMs / 1000} s`));
    }, settings.timeoutMs);
    request.on('response', (response) => {
      finish({ statusCode: response.statusCode ?? null, error: null });
      response.resume();
      response.on('end', () => clearTimeout(timer));
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      finish({ statusCode: null, error: error.message });
    });
    request.end(body);
  });
}
