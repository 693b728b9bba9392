/**
 * The domain errors. Services and repositories throw these; the HTTP error handler is the only
 * place that turns them into status codes and bodies (api-details section 1).
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  abstract readonly type: string;
  constructor(
    message: string,
    readonly subtype: string | null = null,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  readonly status = 400;
  readonly type = 'INVALID_REQUEST_ERROR';
  constructor(message: string, subtype: string | null = 'INVALID_ARGUMENT') {
    super(message, subtype);
  }
}

export class NotFound extends DomainError {
  readonly status = 404;
  readonly type = 'INVALID_REQUEST_ERROR';
  constructor(message: string, subtype: string | null = 'INVALID_ARGUMENT') {
    super(message, subtype);
  }
}

/** What was there is no longer: an expired or used-up link (a store's download). */
export class Gone extends DomainError {
  readonly status = 410;
  readonly type = 'INVALID_REQUEST_ERROR';
}

export class Conflict extends DomainError {
  readonly status = 409;
  readonly type = 'CONFLICT';
}

export class Unauthorized extends DomainError {
  readonly status = 401;
  readonly type = 'AUTHORIZATION_ERROR';
  /** The `WWW-Authenticate` challenge (RFC 6750 3). */
  constructor(
    message: string,
    readonly challenge = 'Bearer realm="emporium"',
    subtype: string | null = null,
  ) {
    super(message, subtype);
  }
}

export class Forbidden extends DomainError {
  readonly status = 403;
  readonly type = 'AUTHORIZATION_ERROR';
}

export class MethodNotAllowed extends DomainError {
  readonly status = 405;
  readonly type = 'METHOD_NOT_ALLOWED';
  constructor(
    message: string,
    readonly allow: string[] = [],
    subtype: string | null = null,
  ) {
    super(message, subtype);
  }
}

export class PayloadTooLarge extends DomainError {
  readonly status = 413;
  readonly type = 'INVALID_REQUEST_ERROR';
}

export class RateLimited extends DomainError {
  readonly status = 429;
  readonly type = 'TOO_MANY_REQUESTS';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, null);
  }
}

export class ServiceUnavailable extends DomainError {
  readonly status = 503;
  readonly type = 'SERVICE_UNAVAILABLE';
}

/** RFC 6749 error codes the token endpoint answers with (section 5.2). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * An error of the OAuth token endpoint, answered in RFC 6749's shape `{ error, error_description }`
 * rather than the commerce API's (api-details 8). `invalid_client` is a 401, the rest a 400
 * unless given.
 */
export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly code: OAuthErrorCode,
    description: string,
    status?: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.status = status ?? (code === 'invalid_client' ? 401 : 400);
  }
}
