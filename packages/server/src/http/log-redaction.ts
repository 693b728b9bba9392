import type { FastifyRequest } from 'fastify';

/** Query parameters that may carry a secret when a client puts one in the URL by mistake (RS-6). */
const SECRET_PARAMS =
  /([?&](?:access_token|refresh_token|token|api_key|apikey|key|code|client_secret|password)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[REDACTED]');
}

/** The request as it appears in log lines: no headers, and the URL without secrets. */
export function requestLogSerializer(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    remoteAddress: request.ip,
  };
}
