const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;

function formDecoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The client id and secret of an `Authorization: Basic` header (RFC 6749 2.3.1: each
 * form-encoded), or undefined when it is missing or malformed. The token endpoint checks them;
 * the request log and the injected faults only read whose request it is.
 */
export function basicCredentials(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  const match = BASIC.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return undefined;
  const clientId = formDecoded(decoded.slice(0, colon));
  const clientSecret = formDecoded(decoded.slice(colon + 1));
  return clientId === undefined || clientSecret === undefined ? undefined : { clientId, clientSecret };
}
