import { OAuthError } from '../../shared/errors.ts';

/** A token request's body: string fields only, each at most once (the parsers see to it). */
export interface TokenRequest {
  fields: Record<string, string>;
  ip: string;
}

export function requiredField(request: TokenRequest, name: string): string {
  const value = request.fields[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name}: required`);
  return value;
}
