import { addFault, clearFaults, listFaults, removeFault, type FaultInput } from '../faults/faults.service.ts';
import { UsageError, type CommandGroup } from './command.ts';

/** A number option as given, or a UsageError naming it. */
function numberOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number))
    throw new UsageError(`--${name}: not a number: ${value}`);
  return number;
}

/**
 * `emporium faults add --website ID --match 'POST /1.0/commerce/orders*' --status 503` and the
 * other effects (--latency 800 or 200..900, --reset, --slow-body 2000), with --probability,
 * --seed, --count or --until, --app or --api-key; `list` and `clear` (faults/faults.service.ts).
 * A running server hears of the change through the database's change feed.
 */
export const FAULTS: CommandGroup = {
  add: {
    synopsis:
      "--website ID --match 'POST /1.0/commerce/orders*' (--status 503 [--retry-after 30] | --latency 800 | " +
      '--latency 200..900 | --reset | --slow-body 2000) [--probability 0.1 --seed 7] [--count 2 | --until TIME] ' +
      '[--app CLIENT_ID | --api-key KEY_ID]',
    options: {
      website: { type: 'string' },
      match: { type: 'string' },
      status: { type: 'string' },
      'retry-after': { type: 'string' },
      latency: { type: 'string' },
      reset: { type: 'boolean' },
      'slow-body': { type: 'string' },
      probability: { type: 'string' },
      seed: { type: 'string' },
      count: { type: 'string' },
      until: { type: 'string' },
      app: { type: 'string' },
      'api-key': { type: 'string' },
    },
    required: ['website', 'match'],
    run: async (deps, values) => {
      // --reset is a flag: parseArgs gives it as true.
      const v = values as Record<string, unknown>;
      const text = (name: string) => (typeof v[name] === 'string' ? v[name] : undefined);
      const input: FaultInput = {
        match: text('match')!,
        status: numberOf(text('status'), 'status'),
        retryAfter: numberOf(text('retry-after'), 'retry-after'),
        latency: text('latency'),
        reset: v.reset === true ? true : undefined,
        slowBody: numberOf(text('slow-body'), 'slow-body'),
        probability: numberOf(text('probability'), 'probability'),
        seed: numberOf(text('seed'), 'seed'),
        count: numberOf(text('count'), 'count'),
        until: text('until'),
        app: text('app'),
        apiKey: text('api-key'),
      };
      const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
      return addFault(deps, text('website')!, given as FaultInput, 'cli');
    },
  },
  list: {
    synopsis: '--website ID',
    options: { website: { type: 'string' } },
    required: ['website'],
    run: async (deps, values) => ({ faults: await listFaults(deps, values.website!) }),
  },
  clear: {
    synopsis: '--website ID [--id RULE_ID]',
    options: { website: { type: 'string' }, id: { type: 'string' } },
    required: ['website'],
    run: async (deps, values) =>
      values.id
        ? removeFault(deps, values.website!, values.id, 'cli')
        : clearFaults(deps, values.website!, 'cli'),
  },
};
