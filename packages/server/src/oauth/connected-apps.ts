import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

export interface ConnectedApp {
  clientId: string;
  name: string;
  scopes: string[];
  grantedAt: Date;
  lastUsedAt: Date | null;
}

/**
 * The apps holding access to a website: a redeemed grant, not revoked, with a token still
 * valid. One line an app, its scopes merged across its grants.
 */
export async function listConnectedApps(db: Db, websiteId: string, now: Date): Promise<ConnectedApp[]> {
  const grants = await db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .select(['c.id as clientId', 'c.name', 'g.scopes', 'g.created_at', 'g.last_used_at'])
    .where('g.website_id', '=', websiteId)
    .where('g.revoked_at', 'is', null)
    .where('g.code_used_at', 'is not', null)
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('oauth_access_tokens as t')
            .select(sql`1`.as('one'))
            .whereRef('t.grant_id', '=', 'g.id')
            .where('t.expires_at', '>', now)
            .where('t.revoked_at', 'is', null),
        ),
        eb.exists(
          eb
            .selectFrom('oauth_refresh_tokens as r')
            .select(sql`1`.as('one'))
            .whereRef('r.grant_id', '=', 'g.id')
            .where('r.expires_at', '>', now)
            .where('r.retired_at', 'is', null),
        ),
      ]),
    )
    .execute();
  const apps = new Map<string, ConnectedApp>();
  for (const grant of grants) {
    const app = apps.get(grant.clientId);
    if (!app) {
      apps.set(grant.clientId, {
        clientId: grant.clientId,
        name: grant.name,
        scopes: [...grant.scopes],
        grantedAt: grant.created_at,
        lastUsedAt: grant.last_used_at,
      });
      continue;
    }
    app.scopes = [...new Set([...app.scopes, ...grant.scopes])];
    if (grant.created_at < app.grantedAt) app.grantedAt = grant.created_at;
    if (grant.last_used_at && (!app.lastUsedAt || grant.last_used_at > app.lastUsedAt)) {
      app.lastUsedAt = grant.last_used_at;
    }
  }
  return [...apps.values()].sort((a, b) => a.name.localeCompare(b.name));
}
