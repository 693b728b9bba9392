import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Jobs } from '../jobs/queue.ts';
import type { AccessTokenCache } from '../oauth/access-tokens.ts';
import { bringDeadlinesNearer } from '../oauth/site-time.ts';
import type { ShiftedClock } from '../shared/clock.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import type { Ids } from '../shared/ids.ts';
import { recordAudit } from '../sites/audit.ts';
import { queueDueDeliveries } from '../webhooks/due-deliveries.ts';

/** Ten years: far enough for any expiry or schedule a test wants to pass, short of dates' limits. */
export const MAX_SHIFT_MS = 10 * 365 * 86_400_000;

export interface SiteClockDeps {
  db: Db;
  clock: ShiftedClock;
  ids: Ids;
  jobs: Jobs;
  /** This process's token cache, which forgets at once; other instances' on the announcement. */
  tokens?: AccessTokenCache;
}

export interface SiteTime {
  websiteId: string;
  /** The website's time now. */
  now: Date;
  /** How far it runs ahead of the service's time, in milliseconds. */
  shiftMs: number;
}

/** A website's time and its shift. */
export async function siteTime(
  deps: Pick<SiteClockDeps, 'db' | 'clock'>,
  websiteId: string,
): Promise<SiteTime> {
  const website = await deps.db
    .selectFrom('websites')
    .select('clock_shift_ms')
    .where('id', '=', websiteId)
    .executeTakeFirst();
  if (!website) throw new NotFound(`website not found: ${websiteId}`);
  return timeOf(deps.clock, websiteId, website.clock_shift_ms);
}

/**
 * Moves one website's time `byMs` ahead, never back, for an app's tests (a test clock, as
 * Stripe's): from then on everything of that site reads the later time (shared/clock.ts), its
 * codes and tokens come that much nearer their expiry, and the retries of its notifications that
 * fell due are sent. Other websites keep their time. The move is written to the site's security
 * events, with `via` (the harness, the CLI, the control endpoint). One transaction: a failure
 * changes nothing.
 */
export async function advanceClock(
  deps: SiteClockDeps,
  websiteId: string,
  byMs: number,
  via: string,
): Promise<SiteTime> {
  if (!Number.isSafeInteger(byMs) || byMs <= 0) {
    throw new ValidationError('by: a site’s clock only moves forward; give a duration above zero, as 48h');
  }
  const shiftMs = await deps.db.transaction().execute(async (trx) => {
    const website = await trx
      .updateTable('websites')
      .set((eb) => ({ clock_shift_ms: eb('clock_shift_ms', '+', byMs) }))
      .where('id', '=', websiteId)
      .returning('clock_shift_ms')
      .executeTakeFirst();
    if (!website) throw new NotFound(`website not found: ${websiteId}`);
    const shift = website.clock_shift_ms;
    if (shift > MAX_SHIFT_MS) {
      throw new ValidationError(`by: a site’s clock runs at most ten years ahead of the service’s`);
    }
    await bringDeadlinesNearer(trx, websiteId, byMs);
    await queueDueDeliveries(trx, deps.jobs, websiteId, timeOf(deps.clock, websiteId, shift).now);
    await recordAudit(deps, trx, {
      kind: 'test_control',
      websiteId,
      detail: { action: 'clock.advance', byMs, shiftMs: shift, via },
    });
    // Every instance's clock and token cache hear of it (sites/site-clocks.ts, oauth/access-tokens.ts).
    await sql`SELECT pg_notify('emporium_changes', ${`site_clock:${websiteId}:${shift}`})`.execute(trx);
    return shift;
  });
  deps.clock.setShift(websiteId, shiftMs);
  deps.tokens?.reset();
  deps.jobs.wakeDeliveryWorkers();
  return timeOf(deps.clock, websiteId, shiftMs);
}

function timeOf(clock: ShiftedClock, websiteId: string, shiftMs: number): SiteTime {
  return { websiteId, now: new Date(clock.base.now().getTime() + shiftMs), shiftMs };
}
