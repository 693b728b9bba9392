/**
 * Errors typed by status (architecture habit 9). Every error the SDK throws for an answer of the
 * API is an `EmporiumError` carrying the error body of api-details 1:
 * `{ type, subtype, message, details, contextId }`; the token endpoint's RFC 6749 bodies
 * `{ error, error_description }` become an `OAuthError`.
 */

/** The commerce API's error body (api-details 1). */
export interface ApiErrorBody {
  type: string;
  subtype: string | null;
  message: string;
  details?: unknown;
  contextId: string;
}

export interface EmporiumErrorInit {
  status: number;
  type: string;
  subtype?: string | null;
  message: string;
  contextId?: string | null;
  details?: unknown;
  headers?: Headers;
  cause?: unknown;
}

export class EmporiumError extends Error {
  /** The HTTP status; 0 when no answer came (network failure, timeout, abort). */
  readonly status: number;
  /** `INVALID_REQUEST_ERROR`, `AUTHORIZATION_ERROR`, `CONFLICT`, ... (api-details 1). */
  readonly type: string;
  /** `MISSING_SCOPE`, `SKU_UNAVAILABLE`, ... or null. */
  readonly subtype: string | null;
  /** The server's request id: quote it when reporting a problem; it is in the server's log line. */
  readonly contextId: string | null;
  readonly details: unknown;
  /** The response headers, when there was a response. */
  readonly headers: Headers | undefined;

  constructor(init: EmporiumErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.type = init.type;
    this.subtype = init.subtype ?? null;
    this.contextId = init.contextId ?? null;
    this.details = init.details ?? null;
    this.headers = init.headers;
  }
}

/** 400, and 413 / 415: a malformed or refused body, parameter or cursor. */
export class ValidationError extends EmporiumError {}
/** 401: missing, unknown, expired or revoked credential. */
export class AuthenticationError extends EmporiumError {}
/** 403: a valid credential without the scope (`MISSING_SCOPE`), or an API key on an OAuth-only endpoint. */
export class PermissionError extends EmporiumError {}
/** 404: not found, or another website's (the same answer). */
export class NotFoundError extends EmporiumError {}
/** 405: wrong method, or a variant/image write on a DIGITAL product. */
export class MethodNotAllowedError extends EmporiumError {}
/** 409: uniqueness, limit and concurrency conflicts. */
export class ConflictError extends EmporiumError {}
/** 429 after the retries were used up; `retryAfterMs` is the server's `Retry-After`. */
export class RateLimitError extends EmporiumError {
  readonly retryAfterMs: number | null;
  constructor(init: EmporiumErrorInit & { retryAfterMs: number | null }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
  }
}
/** 5xx. */
export class ServerError extends EmporiumError {}
/** No answer: the connection failed or was cut (status 0). */
export class ConnectionError extends EmporiumError {}
/** No answer within the request's `timeoutMs` (status 0). */
export class TimeoutError extends ConnectionError {}
/** The caller's AbortSignal fired (status 0); never retried. */
export class AbortError extends EmporiumError {}

/**
 * An RFC 6749 error: from the token endpoint (`invalid_grant`, `invalid_client`, ...; `status`
 * is the HTTP status), or from the authorization redirect (`status` 0).
 */
export class OAuthError extends EmporiumError {
  /** The RFC 6749 error code, also in `type`. */
  readonly error: string;
  readonly errorDescription: string | null;
  constructor(init: {
    status: number;
    error: string;
    errorDescription?: string | null;
    headers?: Headers;
    cause?: unknown;
  }) {
    super({
      status: init.status,
      type: init.error,
      message: init.errorDescription ? `${init.error}: ${init.errorDescription}` : init.error,
      headers: init.headers,
      cause: init.cause,
    });
    this.error = init.error;
    this.errorDescription = init.errorDescription ?? null;
  }
}

/** The owner chose Deny on the consent page: the redirect carried `error=access_denied`. */
export class AccessDenied extends OAuthError {
  constructor(errorDescription?: string | null) {
    super({
      status: 0,
      error: 'access_denied',
      errorDescription: errorDescription ?? 'the owner denied access',
    });
  }
}

/** The redirect's `state` is not the one this app sent: possibly a forged callback (RFC 6749 10.12). */
export class StateMismatch extends OAuthError {
  constructor() {
    super({
      status: 0,
      error: 'invalid_state',
      errorDescription: 'state: not the one of the authorization request',
    });
  }
}

/**
 * The stored tokens can no longer be used: the access token was refused after a refresh, the
 * refresh token was refused (`invalid_grant`: expired, revoked, replayed), or there is none. The
 * app must send the owner through authorization again. `cause` is the error that decided it.
 */
export class ReauthorizationRequired extends AuthenticationError {
  constructor(message: string, cause?: unknown) {
    super({ status: 401, type: 'REAUTHORIZATION_REQUIRED', message, cause });
  }
}

const BY_STATUS: Record<number, typeof EmporiumError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  413: ValidationError,
  415: ValidationError,
};

function isApiErrorBody(body: unknown): body is ApiErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ApiErrorBody).type === 'string' &&
    typeof (body as ApiErrorBody).message === 'string'
  );
}

/** The typed error of an API answer (status >= 400). */
export function apiError(
  status: number,
  body: unknown,
  headers: Headers,
  retryAfterMs: number | null = null,
): EmporiumError {
  // An RFC 7807 body (a missing Idempotency-Key) says what was wrong in `detail`.
  const problem = typeof (body as { detail?: unknown } | null)?.detail === 'string';
  const parsed: ApiErrorBody = isApiErrorBody(body)
    ? body
    : {
        type: status >= 500 ? 'SERVER_ERROR' : 'HTTP_ERROR',
        subtype: null,
        message: problem
          ? (body as { detail: string }).detail
          : `HTTP ${status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`,
        contextId: '',
      };
  const init: EmporiumErrorInit = {
    status,
    type: parsed.type,
    subtype: parsed.subtype,
    message: parsed.message,
    contextId: parsed.contextId || null,
    details: parsed.details,
    headers,
  };
  if (status === 429) return new RateLimitError({ ...init, retryAfterMs });
  if (status >= 500) return new ServerError(init);
  const Class = BY_STATUS[status] ?? EmporiumError;
  return new Class(init);
}

/** The typed error of a token endpoint answer (status >= 400). */
export function oauthError(status: number, body: unknown, headers: Headers): OAuthError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return new OAuthError({
    status,
    error: typeof b.error === 'string' ? b.error : status >= 500 ? 'server_error' : 'invalid_request',
    errorDescription:
      typeof b.error_description === 'string'
        ? b.error_description
        : typeof body === 'string' && body
          ? body.slice(0, 200)
          : `HTTP ${status}`,
    headers,
  });
}
