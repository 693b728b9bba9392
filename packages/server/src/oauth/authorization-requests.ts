import { randomBytes } from 'node:crypto';
import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { Forbidden, ValidationError } from '../shared/errors.ts';
import type { AuthorizeRequest } from './authorize.ts';

/**
 * Authorization requests waiting for the owner's answer on the consent page: stored when the
 * authorize endpoint accepts them, claimed by one owner, answered once.
 */

/** How long the owner has to sign in and answer (security AZ-11). */
const REQUEST_MS = 10 * 60_000;

const GONE =
  'This request to connect an app has expired or was already answered. Go back to the app and start again.';

/** Stores a request every authorize check accepted; its id, for the consent page's address. */
export async function saveAuthorizationRequest(
  deps: { db: Db; clock: Clock },
  pending: AuthorizeRequest,
): Promise<string> {
  const id = randomBytes(16).toString('hex');
  const now = deps.clock.now();
  await deps.db
    .insertInto('oauth_authorization_requests')
    .values({
      id,
      client_id: pending.client.id,
      redirect_uri: pending.redirectUri,
      scopes: pending.scopes,
      state: pending.state,
      website_id: pending.websiteId,
      offline: pending.offline,
      code_challenge: pending.codeChallenge,
      created_at: now,
      expires_at: new Date(now.getTime() + REQUEST_MS),
    })
    .execute();
  return id;
}

/** An unanswered, unexpired request; claimed by the first owner who opens it (AZ-8). */
export async function claimPendingRequest(
  deps: { db: Db; clock: Clock },
  requestId: string,
  ownerId: string,
) {
  const now = deps.clock.now();
  const claimed = await deps.db
    .updateTable('oauth_authorization_requests')
    .set({ owner_id: ownerId })
    .where('id', '=', requestId)
    .where('answered_at', 'is', null)
    .where('expires_at', '>', now)
    .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', ownerId)]))
    .returningAll()
    .executeTakeFirst();
  if (claimed) return claimed;
  const exists = await deps.db
    .selectFrom('oauth_authorization_requests')
    .select(['owner_id', 'answered_at', 'expires_at'])
    .where('id', '=', requestId)
    .executeTakeFirst();
  if (exists && exists.owner_id !== ownerId && !exists.answered_at && exists.expires_at > now) {
    throw new Forbidden('This request to connect an app was opened by another account.');
  }
  throw new ValidationError(GONE, null);
}

/** Marks the request answered, or refuses it as gone when it already was. */
export async function answerAuthorizationRequest(
  deps: { db: Db; clock: Clock },
  requestId: string,
): Promise<void> {
  // Answered once: of two submissions, one goes on and the other finds it answered (AZ-11).
  const answered = await deps.db
    .updateTable('oauth_authorization_requests')
    .set({ answered_at: deps.clock.now() })
    .where('id', '=', requestId)
    .where('answered_at', 'is', null)
    .executeTakeFirst();
  if (answered.numUpdatedRows === 0n) throw new ValidationError(GONE, null);
}
