import { digest } from '../shared/secrets.ts';
import { randomPoolBytes } from '../shared/random-pool.ts';

/**
 * Gift card codes: 16 characters of an alphabet without look-alikes (no 0/O, 1/I), in four
 * groups of four (`7KQM-2XWD-P9HC-RT4E`), 80 random bits from the secure random source
 * (security SC-2). Stored only as the SHA-256 digest of the code's characters without separators,
 * with the last four to show (SC-1, SC-4); a code is looked up by that digest, never compared as text.
 */

/** 32 characters, so the low five bits of a random byte pick one without bias. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const LENGTH = 16;

export function newGiftCardCode(): string {
  const bytes = randomPoolBytes(LENGTH);
  let chars = '';
  for (const byte of bytes) chars += CODE_ALPHABET[byte & 31];
  return chars.match(/.{4}/g)!.join('-');
}

/**
 * The code's characters as typed, the way a shopper may write them: any case, with spaces or
 * hyphens anywhere. Undefined when it cannot be a code (wrong length or characters), which reads
 * as an unknown code.
 */
export function normalizeCode(typed: string): string | undefined {
  const chars = typed.replace(/[\s-]/g, '').toUpperCase();
  if (chars.length !== LENGTH) return undefined;
  for (const c of chars) if (!CODE_ALPHABET.includes(c)) return undefined;
  return chars;
}

/** The digest a code is stored and found by. */
export function codeDigest(code: string): Buffer {
  return digest(`emporium gift card:${normalizeCode(code) ?? code}`);
}

export const lastFour = (code: string) => (normalizeCode(code) ?? code).slice(-4);

/** How every page and e-mail names a card: by its last four behind the dots of the rest (`····ABCD`). */
export const maskedCode = (last: string) => `····${last}`;
