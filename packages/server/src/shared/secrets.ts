import { createHash, hash, timingSafeEqual } from 'node:crypto';
import { randomPoolBytes } from './random-pool.ts';

/**
 * High-entropy secrets (API keys, later tokens and client secrets): 256 random bits with a type
 * prefix a leak scanner can find (security SC-3), stored only as a SHA-256 digest (SC-1).
 */
export function newSecret(prefix: string): string {
  return prefix + randomPoolBytes(32).toString('base64url');
}

export function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/**
 * digest() as hexadecimal text, in one call: a cache key computed on every request, where a
 * Hash object and a Buffer each time cost a few microseconds (bench/README.md, "Get by id").
 */
export function digestHex(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of two secrets through fixed-length digests (TE-4). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
