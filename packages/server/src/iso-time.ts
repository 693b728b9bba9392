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
