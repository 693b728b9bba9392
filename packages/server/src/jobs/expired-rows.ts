import { sql } from 'kysely';
import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { KEY_KEPT_MS } from '../db/idempotency-keys.ts';

/** Rows outlive their expiry by a day, so nothing in use is ever swept from under a request. */
const GRACE_MS = 24 * 3600_000;
/** Security events are kept a year for the owner to read. */
const AUDIT_KEEP_MS = 365 * 24 * 3600_000;

/**
 * Deletes what can no longer be used: expired access tokens; expired refresh tokens that no
 * pending refresh still needs as its parent (its siblings are found through it); grants left
 * with no token, once their code expired or they were revoked; expired sessions and
 * authorization requests; security events older than a year; idempotency keys of inventory
 * adjustments and order imports past their 48 hours (no grace: requests stop seeing them then).
 * Idempotent, so every instance may run it. Returns the rows deleted, by table.
 */
export async function sweepExpiredRows(deps: { db: Db; clock: Clock }): Promise<Record<string, number>> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - GRACE_MS);
  const count = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows);
  const deleted: Record<string, number> = {};
  deleted.oauth_access_tokens = count(
    await deps.db.deleteFrom('oauth_access_tokens').where('expires_at', '<', cutoff).executeTakeFirst(),
  );
  deleted.oauth_refresh_tokens = count(
    await deps.db
      .deleteFrom('oauth_refresh_tokens as r')
      .where('r.expires_at', '<', cutoff)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('oauth_refresh_tokens as c')
              .select(sql`1`.as('one'))
              .whereRef('c.parent_id', '=', 'r.id')
              .where('c.confirmed_at', 'is', null)
              .where('c.retired_at', 'is', null),
          ),
        ),
      )
      .executeTakeFirst(),
  );
  deleted.oauth_grants = count(
    await deps.db
      .deleteFrom('oauth_grants as g')
      .where((eb) => eb.or([eb('g.code_expires_at', '<', cutoff), eb('g.revoked_at', '<', cutoff)]))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('oauth_access_tokens as t')
              .select(sql`1`.as('one'))
              .whereRef('t.grant_id', '=', 'g.id')
              .where('g.revoked_at', 'is', null),
          ),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('oauth_refresh_tokens as r')
              .select(sql`1`.as('one'))
              .whereRef('r.grant_id', '=', 'g.id')
              .where('g.revoked_at', 'is', null),
          ),
        ),
      )
      .executeTakeFirst(),
  );
  deleted.owner_sessions = count(
    await deps.db.deleteFrom('owner_sessions').where('expires_at', '<', now).executeTakeFirst(),
  );
  deleted.oauth_authorization_requests = count(
    await deps.db
      .deleteFrom('oauth_authorization_requests')
      .where('expires_at', '<', cutoff)
      .executeTakeFirst(),
  );
  deleted.audit_events = count(
    await deps.db
      .deleteFrom('audit_events')
      .where('at', '<', new Date(now.getTime() - AUDIT_KEEP_MS))
      .executeTakeFirst(),
  );
  for (const table of ['inventory_adjustment_keys', 'order_import_keys'] as const) {
    deleted[table] = count(
      await deps.db
        .deleteFrom(table)
        .where('created_at', '<=', new Date(now.getTime() - KEY_KEPT_MS))
        .executeTakeFirst(),
    );
  }
  return deleted;
}
