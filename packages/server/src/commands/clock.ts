import { describeDuration, parseDuration } from '../shared/duration.ts';
import { advanceClock, siteTime, type SiteTime } from '../testing/site-clock.ts';
import type { CommandGroup } from './command.ts';

function shown(time: SiteTime) {
  return {
    websiteId: time.websiteId,
    now: time.now.toISOString(),
    shiftMs: time.shiftMs,
    shift: describeDuration(time.shiftMs),
  };
}

/**
 * `emporium clock advance --website ID --by 48h` moves one site's time ahead (never back);
 * `emporium clock show --website ID` tells its time and how far ahead it runs (testing/site-clock.ts).
 */
export const CLOCK: CommandGroup = {
  advance: {
    synopsis: '--website ID --by DURATION (48h, 90m, 1d12h)',
    options: { website: { type: 'string' }, by: { type: 'string' } },
    required: ['website', 'by'],
    run: async (deps, values) =>
      shown(await advanceClock(deps, values.website!, parseDuration(values.by!, 'by'), 'cli')),
  },
  show: {
    synopsis: '--website ID',
    options: { website: { type: 'string' } },
    required: ['website'],
    run: async (deps, values) => shown(await siteTime(deps, values.website!)),
  },
};
