import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { uniqueViolation } from '../db/database.ts';
import { Conflict, ValidationError } from '../shared/errors.ts';
import { isEmail } from '../shared/email.ts';
import type { Ids } from '../shared/ids.ts';
import { hashPassword } from './passwords.ts';

const MAX_NAME = 100;

/** A name as given, trimmed; empty when not given. */
function personName(value: string | undefined, field: string): string {
  const name = (value ?? '').trim();
  if (name.length > MAX_NAME) throw new ValidationError(`${field}: at most ${MAX_NAME} characters`);
  if (name.includes('\0')) throw new ValidationError(`${field}: holds a character that cannot be stored`);
  return name;
}

export async function createOwner(
  deps: { db: Db; clock: Clock; ids: Ids },
  input: { email: string; password: string; firstName?: string; lastName?: string },
): Promise<{ ownerId: string }> {
  const email = input.email.trim();
  if (!isEmail(email) || email.length > 254) throw new ValidationError('email: not a valid email address');
  if (input.password.length < 8 || input.password.length > 200) {
    throw new ValidationError('password: 8 to 200 characters');
  }
  const firstName = personName(input.firstName, 'firstName');
  const lastName = personName(input.lastName, 'lastName');
  const ownerId = deps.ids.objectId();
  try {
    await deps.db
      .insertInto('owners')
      .values({
        id: ownerId,
        email,
        first_name: firstName,
        last_name: lastName,
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

/** The owner signing in with this email, whatever its case, and their password's hash. */
export function ownerSignIn(db: Db, email: string) {
  return db
    .selectFrom('owners')
    .select(['id', 'email', 'password_hash'])
    .where(({ fn, eb }) => eb(fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

/**
 * The member an OAuth token acts for (`GET /1.0/authorization/member`): the owner of its website,
 * the only one who can grant access to it.
 */
export async function memberOf(
  db: Db,
  websiteId: string,
): Promise<{ id: string; firstName: string; lastName: string; email: string }> {
  const owner = await db
    .selectFrom('websites')
    .innerJoin('owners', 'owners.id', 'websites.owner_id')
    .select(['owners.id', 'owners.first_name', 'owners.last_name', 'owners.email'])
    .where('websites.id', '=', websiteId)
    .executeTakeFirstOrThrow();
  return { id: owner.id, firstName: owner.first_name, lastName: owner.last_name, email: owner.email };
}
