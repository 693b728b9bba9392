import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import * as repo from './dashboard.repo.ts';

/** A site's figures at a glance, for its owner's site page. */

export const REVENUE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface Dashboard {
  products: { visible: number; hidden: number };
  awaitingFulfillment: number;
  revenue: {
    currency: string;
    timeZone: string;
    /** Every one of the last REVENUE_DAYS days, oldest first, today (in the time zone) last. */
    days: repo.DayRevenue[];
    totalMinor: number;
    orders: number;
  };
}

/** Today's date (YYYY-MM-DD) in the time zone; en-CA writes dates that way. */
function today(now: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

/** The day `n` days before `day`: calendar arithmetic, so a change of offset (DST) moves nothing. */
function daysBefore(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The products by visibility, the orders awaiting fulfillment, and the revenue of the last 30
 * days, today included: days of the website's time zone, money in its currency, the grand totals
 * of the orders placed on them, canceled ones excepted (their sale did not stand).
 */
export async function siteDashboard(
  deps: { db: Db; clock: Clock },
  website: { id: string; currency: string; time_zone: string },
): Promise<Dashboard> {
  const timeZone = website.time_zone;
  const last = today(deps.clock.now(website.id), timeZone);
  const first = daysBefore(last, REVENUE_DAYS - 1);
  const [products, awaitingFulfillment, sold] = await Promise.all([
    repo.countProducts(deps.db, website.id),
    repo.countAwaitingFulfillment(deps.db, website.id),
    repo.selectDailyRevenue(deps.db, website.id, { first, last, timeZone }),
  ]);
  const byDay = new Map(sold.map((d) => [d.day, d]));
  const days = Array.from({ length: REVENUE_DAYS }, (_, i) => {
    const day = daysBefore(last, REVENUE_DAYS - 1 - i);
    return byDay.get(day) ?? { day, totalMinor: 0, orders: 0 };
  });
  return {
    products,
    awaitingFulfillment,
    revenue: {
      currency: website.currency,
      timeZone,
      days,
      totalMinor: days.reduce((sum, d) => sum + d.totalMinor, 0),
      orders: days.reduce((sum, d) => sum + d.orders, 0),
    },
  };
}
