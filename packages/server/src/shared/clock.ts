/** Time is a dependency so that every expiry and ordering rule can be tested without sleeping. */
export interface Clock {
  /**
   * Now. With a website: that website's time, which its test clock may have moved ahead of the
   * service's (docs/testing-your-app.md, "A site's clock"); every time written on a website's
   * records, or compared with them, is read this way. Without: the service's own time, for what
   * belongs to no website (sessions, leases, sweeps).
   */
  now(websiteId?: string): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock whose websites may each run ahead of it by a shift of their own. The shifts are kept
 * in memory so that reading a website's time costs no query; sites/site-clocks.ts keeps them
 * equal to the database's on every instance.
 */
export class ShiftedClock implements Clock {
  private shifts = new Map<string, number>();

  constructor(readonly base: Clock) {}

  now(websiteId?: string): Date {
    const now = this.base.now();
    const shift = websiteId === undefined ? 0 : (this.shifts.get(websiteId) ?? 0);
    return shift === 0 ? now : new Date(now.getTime() + shift);
  }

  /** How far the website's time runs ahead of the service's, in milliseconds. */
  shiftOf(websiteId: string): number {
    return this.shifts.get(websiteId) ?? 0;
  }

  setShift(websiteId: string, ms: number): void {
    if (ms === 0) this.shifts.delete(websiteId);
    else this.shifts.set(websiteId, ms);
  }

  /** Every shift at once, as the database holds them (at start, and when the change feed is back). */
  replaceShifts(shifts: Iterable<[string, number]>): void {
    this.shifts = new Map([...shifts].filter(([, ms]) => ms !== 0));
  }
}
