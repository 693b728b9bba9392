import { randomBytes } from 'node:crypto';

/** Bytes fetched from the system's random source at a time. */
const POOL_BYTES = 8192;

let pool = Buffer.alloc(0);
let offset = 0;

/**
 * `n` bytes of the system's CSPRNG, cut from a pool that is filled 8 KiB at a time and never
 * reused: each byte is given out once, so a secret made of them is as good as randomBytes(n), at
 * a fraction of the cost of a call into the random source per secret (such calls showed in the
 * profiles of the refresh grant and of request ids). The result is a view of the pool: read it,
 * do not keep it writable beyond the caller.
 */
export function randomPoolBytes(n: number): Buffer {
  if (n > POOL_BYTES) return randomBytes(n);
  if (offset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  offset += n;
  return pool.subarray(offset - n, offset);
}
