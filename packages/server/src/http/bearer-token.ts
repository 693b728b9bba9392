import { timingSafeEqual } from 'node:crypto';
import { Unauthorized } from '../shared/errors.ts';
import { digest } from '../shared/secrets.ts';

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * A check that a request bears `token` in its Authorization header, compared in constant time
 * through digests (the token itself is not kept); a request without it gets a 401 challenging
 * for `realm`. For the operators' endpoints: /metrics and the test controls.
 */
export function bearerTokenCheck(
  token: string,
  realm: string,
  message: string,
): (authorization: string | undefined) => void {
  const expected = digest(token);
  return (authorization) => {
    const given = BEARER.exec(authorization ?? '')?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      throw new Unauthorized(message, `Bearer realm="${realm}"`);
    }
  };
}
