import { ValidationError } from './errors.ts';

/** An e-mail address as the platform takes one: something@somewhere.tld, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}

/** `value` trimmed, or a 400 naming `field`. */
export function parseEmail(value: string, field: string): string {
  const email = value.trim();
  if (!isEmail(email)) throw new ValidationError(`${field}: not an e-mail address`);
  return email;
}
