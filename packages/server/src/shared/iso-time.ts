import { ValidationError } from './errors.ts';

const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** An ISO 8601 UTC time such as `2026-01-31T12:00:00.000Z`, or a 400 naming the field. */
export function parseUtcTime(value: string, field: string): Date {
  const time = UTC_TIMESTAMP.test(value) ? Date.parse(value) : NaN;
  // Date.parse rolls impossible dates over (February 30 becomes March 2): refuse them instead.
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 19) !== value.slice(0, 19)) {
    throw new ValidationError(`${field}: must be an ISO 8601 UTC time such as 2026-01-31T12:00:00.000Z`);
  }
  return new Date(time);
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time with any offset (`Z`, `+02:00`, `-05:30`) and up to 9 fractional digits,
 * as the instant it names (milliseconds kept, finer digits dropped), or a 400 naming the field.
 * For the v1 fields the platform types `date-time` (discounts' validFrom/validTo, the contacts
 * query's date filters); the Commerce 1.x fields documented as UTC keep parseUtcTime. No leap
 * second (`:60`): JavaScript's dates have none.
 */
export function parseDateTime(value: string, field: string): Date {
  const m = DATE_TIME.exec(value);
  const refuse = () =>
    new ValidationError(
      `${field}: must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00.000+01:00`,
    );
  if (!m) throw refuse();
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetHours = m[8] ? Number(m[9]) : 0;
  const offsetMinutes = m[8] ? Number(m[10]) : 0;
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, millis);
  // Out-of-range parts roll over (February 30 becomes March 2): refuse them instead.
  const exact =
    local.getUTCFullYear() === year &&
    local.getUTCMonth() === month - 1 &&
    local.getUTCDate() === day &&
    local.getUTCHours() === hour &&
    local.getUTCMinutes() === minute &&
    local.getUTCSeconds() === second &&
    offsetHours <= 23 &&
    offsetMinutes <= 59;
  if (!exact) throw refuse();
  const sign = m[8] === '-' ? -1 : 1;
  const instant = local.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  if (Number.isNaN(instant)) throw refuse();
  return new Date(instant);
}

/** A list's window of changes: after `after`, up to and including `before`. */
export interface Window {
  after: Date;
  before: Date;
}

/**
 * The window of a list's `modifiedAfter` and `modifiedBefore` (empty strings count as absent):
 * both or neither, valid UTC times, the end after the start. `missing` is the 400's message when
 * only one is given (the Commerce 1.0 lists use the platform's, the products list its own).
 */
export function parseWindow(
  modifiedAfter: string | undefined,
  modifiedBefore: string | undefined,
  missing: (absent: 'modifiedAfter' | 'modifiedBefore') => string,
): Window | undefined {
  const hasAfter = modifiedAfter !== undefined && modifiedAfter !== '';
  const hasBefore = modifiedBefore !== undefined && modifiedBefore !== '';
  if (hasAfter !== hasBefore) {
    throw new ValidationError(missing(hasAfter ? 'modifiedBefore' : 'modifiedAfter'), 'MISSING_ARGUMENT');
  }
  if (!hasAfter) return undefined;
  const after = parseUtcTime(modifiedAfter!, 'modifiedAfter');
  const before = parseUtcTime(modifiedBefore!, 'modifiedBefore');
  if (before <= after) throw new ValidationError('modifiedBefore: must be later than modifiedAfter');
  return { after, before };
}

/** The message of the Commerce 1.0 lists (orders, transactions) for one date without the other. */
export const BOTH_DATES = () => "'modifiedBefore' and 'modifiedAfter' must both be specified.";
