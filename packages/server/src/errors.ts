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
  ) {
    super(message, null);
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
