import type { ChangeFeed } from '../db/change-feed.ts';
import type { Db } from '../db/database.ts';
import { ShiftedClock, type Clock } from '../shared/clock.ts';

/**
 * The clock every service reads, with each website's shift as the database holds it. A shift is
 * announced on the change feed when it moves (testing/site-clock.ts), and all of them are read
 * again whenever the feed comes back, so every instance reads a website's time alike.
 */
export function siteClocks(base: Clock, db: Db, feed?: ChangeFeed): ShiftedClock {
  const clock = base instanceof ShiftedClock ? base : new ShiftedClock(base);
  feed?.on('change', (kind: string, websiteId: string, shift?: string) => {
    if (kind === 'site_clock') clock.setShift(websiteId, Number(shift));
  });
  feed?.on('live', () => {
    // A failed read leaves the shifts as they were; the next time the feed is back reads again.
    loadShifts(db, clock).catch(() => {});
  });
  return clock;
}

/** Reads every website's shift into the clock: at start, and when announcements may have been missed. */
export async function loadShifts(db: Db, clock: ShiftedClock): Promise<void> {
  const rows = await db
    .selectFrom('websites')
    .select(['id', 'clock_shift_ms'])
    .where('clock_shift_ms', '!=', 0)
    .execute();
  clock.replaceShifts(rows.map((row) => [row.id, row.clock_shift_ms]));
}
