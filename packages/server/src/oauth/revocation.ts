import { recordAudit } from '../sites/audit.ts';
import { retryingDeadlocks } from '../db/deadlock.ts';
import { NotFound } from '../shared/errors.ts';
import { emit, type OutboxDeps } from '../webhooks/outbox.ts';
import type { TokenDeps } from './tokens.ts';

/**
 * The owner revokes a client for a website (security GR-1): every grant of that pair is revoked
 * in one committed statement, so every access token, refresh token and pending code of it stops
 * working at once, on every instance (tokens are checked against the database on each use).
 * Revoking what holds no access is not an error. Returns how many grants were revoked.
 * This process's token cache forgets them at once, other processes' on the database's notice.
 *
 * The app hears of it: its extension.uninstall subscribers for the website are notified, and
 * then its subscriptions there are deleted, in the same transaction (api-details 7).
 */
export async function revokeAccess(
  deps: TokenDeps & OutboxDeps,
  input: { websiteId: string; clientId: string; ownerId?: string; ip?: string },
): Promise<number> {
  const website = await deps.db
    .selectFrom('websites')
    .select('owner_id')
    .where('id', '=', input.websiteId)
    .executeTakeFirst();
  if (!website) throw new NotFound(`website not found: ${input.websiteId}`);
  const client = await deps.db
    .selectFrom('oauth_clients')
    .select('id')
    .where('id', '=', input.clientId)
    .executeTakeFirst();
  if (!client) throw new NotFound(`client not found: ${input.clientId}`);
  let notified = 0;
  // A batch of refreshes, exchanges or first calls holds its grants' locks in its own order
  // (db/call-batches.ts).
  const revoked = await retryingDeadlocks(() =>
    deps.db.transaction().execute(async (trx) => {
      const grants = await trx
        .updateTable('oauth_grants')
        .set({ revoked_at: deps.clock.now(), revoked_reason: 'owner' })
        .where('website_id', '=', input.websiteId)
        .where('client_id', '=', input.clientId)
        .where('revoked_at', 'is', null)
        .returning('id')
        .execute();
      await recordAudit(deps, trx, {
        kind: 'revocation',
        ownerId: input.ownerId ?? website.owner_id,
        websiteId: input.websiteId,
        clientId: input.clientId,
        ip: input.ip,
        detail: { grants: grants.length },
      });
      const { clientId, websiteId } = input;
      notified = await emit(trx, deps, {
        websiteId,
        clientId,
        topic: 'extension.uninstall',
        data: { clientId },
      });
      await trx
        .deleteFrom('webhook_subscriptions')
        .where('website_id', '=', websiteId)
        .where('client_id', '=', clientId)
        .execute();
      return grants.length;
    }),
  );
  if (revoked > 0) deps.tokens?.reset();
  if (notified) deps.jobs.wakeDeliveryWorkers();
  return revoked;
}
