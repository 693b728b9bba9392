import { createHmac } from 'node:crypto';

/**
 * A subscription's secret: 64 hex characters derived from the server's webhook key, the
 * subscription id and its secret version. Nothing that reveals it is stored (security SC-1);
 * a rotation moves the version, so the old secret stops being used at once.
 */
export function subscriptionSecret(key: Buffer, subscriptionId: string, version: number): string {
  return createHmac('sha256', key).update(`${subscriptionId}:${version}`).digest('hex');
}

/** api-details 7: lower-case hex HMAC-SHA256 of the raw body, keyed with the secret decoded from hex. */
export function signature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'hex')).update(body).digest('hex');
}
