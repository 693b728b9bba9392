/**
 * Webhook signatures (api-details 7): `Squarespace-Signature` is the lower-case hex HMAC-SHA256
 * of the raw body, keyed with the subscription's secret decoded from hex. WebCrypto only, so it
 * runs in browsers, workers and Node alike; WebCrypto is asynchronous, hence the Promise.
 */
import { bytesEqual, fromHex, utf8 } from './encoding.js';

/** The header that carries the signature (lower-case, as Node's `req.headers` has it). */
export const SIGNATURE_HEADER = 'squarespace-signature';

export type RawBody = string | Uint8Array | ArrayBuffer;

function hmacKey(secret: string): Promise<CryptoKey> {
  const raw = fromHex(secret);
  if (!raw || raw.length === 0) throw new TypeError('verifyWebhook: the secret must be hex (64 characters)');
  return globalThis.crypto.subtle.importKey(
    'raw',
    raw as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
}

/**
 * True when `signatureHeader` is the signature of exactly these bytes under `secret` (or under
 * any of several secrets, e.g. the old and the new one around a rotation). Pass the raw body as
 * received, before any JSON parsing: a re-serialized body does not verify. A string is taken as
 * UTF-8. The comparison takes the same time wherever the signatures differ.
 */
export async function verifyWebhook(
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  secret: string | readonly string[],
): Promise<boolean> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('verifyWebhook: no secret');
  // The header is the hex of 32 bytes; anything else cannot match.
  if (typeof signatureHeader !== 'string' || !/^[0-9a-f]{64}$/i.test(signatureHeader.trim())) return false;
  const given = fromHex(signatureHeader.trim())!;
  const data =
    typeof rawBody === 'string'
      ? utf8(rawBody)
      : rawBody instanceof Uint8Array
        ? rawBody
        : new Uint8Array(rawBody);
  let genuine = false;
  for (const s of secrets) {
    const expected = new Uint8Array(
      await globalThis.crypto.subtle.sign('HMAC', await hmacKey(s), data as Uint8Array<ArrayBuffer>),
    );
    // No early exit: every secret is tried, so the time says nothing about which one matched.
    if (bytesEqual(expected, given)) genuine = true;
  }
  return genuine;
}
