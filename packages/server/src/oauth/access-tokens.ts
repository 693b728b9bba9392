import type { Clock } from '../clock.ts';
import { queryPrepared, type DatabaseHandle } from '../db/database.ts';
import type { Ids } from '../ids.ts';
import { digest } from '../secrets.ts';
import { confirmPair, lockGrant } from './tokens.ts';

/** How often a grant's last-used time is written: once a minute is enough to show it. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface AccessTokenCredential {
  kind: 'access_token';
  /** The grant: one authorization of one client for one website. */
  id: string;
  clientId: string;
  websiteId: string;
  scopes: readonly string[];
}

type Deps = Pick<DatabaseHandle, 'db' | 'pool'> & { clock: Clock; ids: Ids };

/**
 * The credential of a live access token, or undefined: unknown, expired, revoked, or of a pair
 * retired by its sibling's confirmation. Read from the database on every request, so a
 * revocation is seen at once by every instance (security RS-5). The first call with the token of
 * a refreshed pair confirms that pair (api-details 8).
 */
export async function authenticateAccessToken(
  deps: Deps,
  presented: string,
): Promise<AccessTokenCredential | undefined> {
  const tokenDigest = digest(presented);
  const [row] = await queryPrepared(
    deps.pool,
    deps.db
      .selectFrom('oauth_access_tokens as t')
      .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
      .select([
        't.grant_id',
        't.pending',
        't.expires_at',
        'g.client_id',
        'g.website_id',
        'g.scopes',
        'g.last_used_at',
      ])
      .where('t.token_digest', '=', tokenDigest)
      .where('t.revoked_at', 'is', null)
      .where('g.revoked_at', 'is', null),
  );
  const now = deps.clock.now();
  if (!row || row.expires_at <= now) return undefined;
  if (row.pending && !(await confirmByUse(deps, row.grant_id, tokenDigest))) return undefined;
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
    await deps.db
      .updateTable('oauth_grants')
      .set({ last_used_at: now })
      .where('id', '=', row.grant_id)
      .execute();
  }
  return {
    kind: 'access_token',
    id: row.grant_id,
    clientId: row.client_id,
    websiteId: row.website_id,
    scopes: row.scopes,
  };
}

/**
 * The first use of a refreshed pair's access token confirms the pair, under the grant's lock:
 * of many parallel first calls one confirms and all succeed (security RT-6); a call with a
 * sibling whose pair lost the race fails. True when the token is still live.
 */
async function confirmByUse(deps: Deps, grantId: string, tokenDigest: Buffer): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const grant = await lockGrant(trx, grantId);
    if (!grant || grant.revoked_at) return false;
    const token = await trx
      .selectFrom('oauth_access_tokens as t')
      .innerJoin('oauth_refresh_tokens as r', 'r.id', 't.refresh_id')
      .select(['t.pending', 't.revoked_at', 'r.id', 'r.parent_id'])
      .where('t.token_digest', '=', tokenDigest)
      .executeTakeFirst();
    if (!token || token.revoked_at) return false;
    if (token.pending) await confirmPair(deps, trx, token.id, token.parent_id);
    return true;
  });
}
