import { parseArgs } from 'node:util';
import type { ListCache } from '../catalog/list-cache.ts';
import type { ProductDocuments } from '../catalog/product-documents.ts';
import type { OrderCaches } from '../orders/order-caches.ts';
import type { ImageStorage } from '../media/storage.ts';
import type { OrderDeps } from '../orders/place-order.ts';
import type { ShiftedClock } from '../shared/clock.ts';
import type { WebhookSettings } from '../webhooks/delivery.ts';

/** A mistake in the command line: the CLI answers with it and the usage, and exits with 2. */
export class UsageError extends Error {}

type Options = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
/** Option values: a string each, and a list each for the options that may be repeated. */
interface Values {
  one: Record<string, string>;
  lists: Record<string, string[]>;
}

/**
 * What a command is given: the services' dependencies on the configured database. The process
 * serves no reads: its caches live for one command, and a running server hears of the change
 * from the database (db/change-feed.ts).
 */
export type CommandDeps = OrderDeps & {
  /** The service's clock with each website's own time, as the server reads it. */
  clock: ShiftedClock;
  documents: ProductDocuments;
  lists: ListCache;
  orders: OrderCaches;
  /** The service's image storage: a command's pictures go where the service reads them. */
  storage: ImageStorage;
  /** The service's webhook signing key: secrets a command shows are the ones deliveries sign with. */
  webhooks: WebhookSettings;
};

/** One command of a group (`emporium admin create-owner ...`). */
export interface Command {
  /** Its options as the help shows them. */
  synopsis: string;
  options: Options;
  required: string[];
  run(deps: CommandDeps, values: Record<string, string>, lists: Record<string, string[]>): Promise<object>;
}

/** A group of commands by name, as `emporium <group> <name>` reaches them. */
export type CommandGroup = Record<string, Command>;

/** The command's options from the command line, or a UsageError naming what is wrong. */
export function parseOptions(command: Command, args: string[]): Values {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args, options: command.options, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const given = (value: unknown) =>
    Array.isArray(value) ? value.length > 0 : value !== undefined && value !== '';
  const missing = command.required.find((name) => !given(values[name]));
  if (missing) throw new UsageError(`missing --${missing}`);
  const lists = Object.fromEntries(Object.entries(values).filter(([, value]) => Array.isArray(value)));
  return { one: values as Record<string, string>, lists: lists as Record<string, string[]> };
}
