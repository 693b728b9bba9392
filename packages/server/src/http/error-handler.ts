import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DomainError,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  ServiceUnavailable,
  Unauthorized,
  ValidationError,
} from '../shared/errors.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { isClientAbort } from './client-abort.ts';
import { bodyUnread, closeAfterAnswer } from './early-close.ts';
import { validationMessage } from './validation-message.ts';

/**
 * Text PostgreSQL refuses (a NUL character). The request check (request-text.ts) refuses it
 * first; this keeps any path it misses a 400 rather than a 500.
 */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

function toDomainError(error: FastifyError): DomainError | undefined {
  if (error instanceof DomainError) return error;
  if (error.validation) {
    const { message, subtype } = validationMessage(error.validation, error.validationContext ?? 'request');
    return new ValidationError(message, subtype);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaType();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLarge('body: larger than this endpoint accepts');
    case 'FST_REQ_FILE_TOO_LARGE':
      return new PayloadTooLarge('file: larger than this endpoint accepts');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new UriTooLong();
    case 'FST_ERR_BAD_URL':
      return new ValidationError('path: not a valid URL (a % must start a percent-encoded UTF-8 byte)', null);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ValidationError('body: not valid JSON', null);
  }
  if (UNSTORABLE_TEXT_CODES.has(error.code)) {
    return new ValidationError('text: holds a character that cannot be stored', null);
  }
  if (isClientAbort(error)) {
    return new ValidationError('body: the connection closed before the body arrived in full', null);
  }
  if (isDatabaseUnavailable(error)) {
    return new ServiceUnavailable('the database is unreachable; retry shortly');
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ValidationError(error.message, null);
  }
  return undefined;
}

/** A path segment that names an API version: `1.0`, `1.1`, `v1`, `v2`. */
const VERSION = /^v?\d+(\.\d+)*$/;

/** A path segment over the router's limit (routerOptions.maxParamLength in app.ts). */
class UriTooLong extends DomainError {
  readonly status = 414;
  readonly type = 'INVALID_REQUEST_ERROR';
  constructor() {
    super('path: a path segment is longer than this API accepts', null);
  }
}

export class UnsupportedMediaType extends DomainError {
  readonly status = 415;
  readonly type = 'INVALID_REQUEST_ERROR';
  constructor() {
    super('Content-Type: this endpoint takes application/json', 'INVALID_CONTENT_TYPE');
  }
}

function send(reply: FastifyReply, request: FastifyRequest, error: DomainError) {
  if (error instanceof Unauthorized) reply.header('www-authenticate', error.challenge);
  if (error instanceof RateLimited) reply.header('retry-after', String(error.retryAfterSeconds));
  if (error instanceof MethodNotAllowed && error.allow.length) reply.header('allow', error.allow.join(', '));
  if (bodyUnread(request.raw)) closeAfterAnswer(reply);
  return reply.code(error.status).send({
    type: error.type,
    subtype: error.subtype,
    message: error.message,
    details: null,
    contextId: request.id,
  });
}

/**
 * The only place where errors become HTTP responses (architecture: habit 4). The body is always
 * the documented shape; a 5xx says nothing about internals, the log line has the detail.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  // Each versioned resource ("commerce/products": the segments after the version up to the
  // first parameter) and the versions it is served under, for the unknown-version 404.
  const resources = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const source = route.url
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/:[A-Za-z0-9_]+/g, '[^/]+')
      .replace(/\*/g, '.*');
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods: [route.method].flat() });
    const [version, ...rest] = route.url.split('/').filter(Boolean);
    const end = rest.findIndex((segment) => /[:*]/.test(segment));
    const resource = rest.slice(0, end < 0 ? rest.length : end).join('/');
    if (version && VERSION.test(version) && resource) {
      resources.set(resource, (resources.get(resource) ?? new Set()).add(version));
    }
  });

  app.setErrorHandler(handleError);

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allow = [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))];
    if (allow.length) {
      return send(
        reply,
        request,
        new MethodNotAllowed(`${request.method} is not allowed on ${path}; use ${allow.join(', ')}`, allow),
      );
    }
    if (unsupportedVersion(path, resources)) {
      return send(reply, request, new NotFound('Not found. The API version is not supported.', null));
    }
    return send(reply, request, new NotFound(`no such endpoint: ${request.method} ${path}`, null));
  });
}

/**
 * The platform answers a resource it serves, asked for under a version it does not serve it in,
 * with its own 404 message (platform-surface 0.1): a client then knows to change the version, not
 * the path. True when the path's first segment is a version and the rest begins with a resource
 * that some other version serves (`/v3/commerce/products/x` when only 1.0, 1.1 and v2 do).
 */
function unsupportedVersion(path: string, resources: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  const [version, ...rest] = path.split('/').filter(Boolean);
  if (!version || !VERSION.test(version)) return false;
  const named = [...resources].filter(([resource]) => {
    return rest.slice(0, resource.split('/').length).join('/') === resource;
  });
  // A resource this version does serve makes it a wrong path (the generic 404), not a wrong version.
  return named.length > 0 && named.every(([, versions]) => !versions.has(version));
}

/**
 * Errors of the request itself and of the router (a bad percent-encoding, an over-long path
 * segment): also Fastify's `frameworkErrors` option, so they leave in the documented body.
 */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const domain = toDomainError(error);
  if (domain) {
    if (domain.status >= 500) request.log.error({ err: error }, 'request failed');
    return send(reply, request, domain);
  }
  request.log.error({ err: error }, 'unexpected error');
  return send(reply, request, new InternalError());
}

class InternalError extends DomainError {
  readonly status = 500;
  readonly type = 'SERVER_ERROR';
  constructor() {
    super('something went wrong on our side; quote the contextId if you report it', null);
  }
}
