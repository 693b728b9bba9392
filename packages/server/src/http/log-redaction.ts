import type { FastifyRequest } from 'fastify';

/** Query parameters that may carry a secret when a client puts one in the URL by mistake (RS-6). */
const SECRET_PARAMS =
  /([?&](?:access_token|refresh_token|token|api_key|apikey|key|code|client_secret|password)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  // Without an `=` there is no parameter value to hide: most URLs, on every request's log line.
  return url.includes('=') ? url.replace(SECRET_PARAMS, '$1[REDACTED]') : url;
}

/**
 * The request as it appears in log lines: no headers, and the URL without secrets. The only
 * guard of the Authorization and Cookie headers in the log (RS-6): pino applies it to every `req`
 * logged, by the service's lines and by Fastify's own.
 */
export function requestLogSerializer(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    remoteAddress: request.ip,
  };
}
