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
