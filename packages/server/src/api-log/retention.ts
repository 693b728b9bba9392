import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';

/** A site's request log keeps 7 days, by the site's own time... */
export const KEEP_MS = 7 * 24 * 3600_000;
/** ...and its newest 100,000 requests, whichever ends first. */
export const KEEP_ROWS = 100_000;

/**
 * Deletes each website's logged requests older than `keepMs` in the website's time (its clock
 * may run ahead: sites/site-clocks.ts) and those beyond its newest `keepRows`. Idempotent, so
 * every instance may run it; the limits are parameters for tests. Returns the rows deleted.
 */
export async function sweepApiLog(
  deps: { db: Db; clock: Clock },
  { keepMs = KEEP_MS, keepRows = KEEP_ROWS }: { keepMs?: number; keepRows?: number } = {},
): Promise<number> {
  const serviceNow = deps.clock.now();
  const old = await sql`
    DELETE FROM api_requests r USING websites w
    WHERE w.id = r.website_id
      AND r.at < ${serviceNow}::timestamptz + w.clock_shift_ms * interval '1 millisecond' - ${keepMs} * interval '1 millisecond'`.execute(
    deps.db,
  );
  const beyond = await sql`
    DELETE FROM api_requests r USING (
      SELECT w.id AS website_id, last.at, last.id
      FROM websites w
      CROSS JOIN LATERAL (
        SELECT at, id FROM api_requests
        WHERE website_id = w.id
        ORDER BY at DESC, id DESC
        OFFSET ${keepRows - 1} LIMIT 1
      ) last
    ) kept
    WHERE r.website_id = kept.website_id AND (r.at, r.id) < (kept.at, kept.id)`.execute(deps.db);
  return Number(old.numAffectedRows ?? 0n) + Number(beyond.numAffectedRows ?? 0n);
}
