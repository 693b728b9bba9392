import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/**
 * A website's clock moved `byMs` ahead (testing/site-clock.ts): its live codes, tokens and
 * authorization requests come that much nearer their end. Their expiry times are kept in the
 * service's time, which every check of them reads (db/functions/oauth_*.sql get the service's
 * moment), so moving the deadlines is what makes a code or a token expire on the site's clock.
 * In the transaction that moves the clock; the token caches forget on its announcement.
 */
export async function bringDeadlinesNearer(trx: Db, websiteId: string, byMs: number): Promise<void> {
  const by = sql`${byMs}::bigint * interval '1 millisecond'`;
  await sql`
    UPDATE oauth_grants SET code_expires_at = code_expires_at - ${by}
    WHERE website_id = ${websiteId} AND code_used_at IS NULL AND revoked_at IS NULL`.execute(trx);
  await sql`
    UPDATE oauth_access_tokens t SET expires_at = t.expires_at - ${by}
    FROM oauth_grants g
    WHERE g.id = t.grant_id AND g.website_id = ${websiteId} AND g.revoked_at IS NULL AND t.revoked_at IS NULL`.execute(
    trx,
  );
  await sql`
    UPDATE oauth_refresh_tokens r SET expires_at = r.expires_at - ${by}
    FROM oauth_grants g
    WHERE g.id = r.grant_id AND g.website_id = ${websiteId} AND g.revoked_at IS NULL AND r.retired_at IS NULL`.execute(
    trx,
  );
  await sql`
    UPDATE oauth_authorization_requests SET expires_at = expires_at - ${by}
    WHERE website_id = ${websiteId} AND answered_at IS NULL`.execute(trx);
}
