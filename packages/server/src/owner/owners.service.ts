import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { uniqueViolation } from '../db/database.ts';
import { Conflict, ValidationError } from '../errors.ts';
import type { Ids } from '../ids.ts';
import { hashPassword } from './passwords.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createOwner(
  deps: { db: Db; clock: Clock; ids: Ids },
  input: { email: string; password: string },
): Promise<{ ownerId: string }> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 254) throw new ValidationError('email: not a valid email address');
  if (input.password.length < 8 || input.password.length > 200) {
    throw new ValidationError('password: 8 to 200 characters');
  }
  const ownerId = deps.ids.objectId();
  try {
    await deps.db
      .insertInto('owners')
      .values({
        id: ownerId,
        email,
        password_hash: await hashPassword(input.password),
        created_at: deps.clock.now(),
      })
      .execute();
  } catch (error) {
    if (uniqueViolation(error))
      throw new Conflict(`email: an owner with ${email} exists already`, 'EMAIL_UNAVAILABLE');
    throw error;
  }
  return { ownerId };
}
