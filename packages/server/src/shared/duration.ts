import { ValidationError } from './errors.ts';

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** `48h`, `90m`, `1d12h`, `2w`, `500ms`: whole numbers each with a unit, largest first or not. */
const DURATION = /^(?:\d{1,9}(?:ms|s|m|h|d|w))+$/;
const PART = /(\d+)(ms|s|m|h|d|w)/g;

/**
 * A length of time as people write it on a command line (`--by 48h`), in milliseconds. Refuses
 * anything else with the accepted form in the message; `what` names the input in it.
 */
export function parseDuration(text: string, what = 'duration'): number {
  const value = text.trim();
  if (!DURATION.test(value)) {
    throw new ValidationError(
      `${what}: "${text}" is not a duration; write a number and a unit (ms, s, m, h, d, w), as 48h, 90m or 1d12h`,
    );
  }
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit!]!;
  return ms;
}

/** `2d 0h 30m`-style text of a length of time, for people: the largest units first, zeros left out. */
export function describeDuration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.abs(ms);
  for (const [unit, size] of [
    ['d', UNIT_MS.d!],
    ['h', UNIT_MS.h!],
    ['m', UNIT_MS.m!],
    ['s', UNIT_MS.s!],
  ] as const) {
    const amount = Math.floor(rest / size);
    if (amount > 0) parts.push(`${amount}${unit}`);
    rest -= amount * size;
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}ms`);
  return parts.join(' ');
}
