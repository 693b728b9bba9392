import { ListCache } from './catalog/list-cache.ts';
import { productDocuments } from './catalog/product-documents.ts';
import { ADMIN } from './commands/admin.ts';
import { CLOCK } from './commands/clock.ts';
import { FAULTS } from './commands/faults.ts';
import { FIXTURES } from './commands/fixtures.ts';
import { TRIGGER } from './commands/trigger.ts';
import { parseOptions, UsageError, type CommandDeps, type CommandGroup } from './commands/command.ts';
import { ShiftedClock, systemClock } from './shared/clock.ts';
import { orderCaches } from './orders/order-caches.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { connect } from './db/connect.ts';
import { serverSecret } from './db/server-secrets.ts';
import { imageStorage } from './image-storage.ts';
import { DomainError } from './shared/errors.ts';
import { randomIds } from './shared/ids.ts';
import { Jobs } from './jobs/queue.ts';
import { loadShifts } from './sites/site-clocks.ts';
import { webhookSettings } from './webhooks/delivery.ts';
import { emailSettings } from './emails/email-settings.ts';

/** The caches of a command's services: room for what one command reads. */
const CLI_CACHE_BYTES = 1024 * 1024;

/** `emporium <group> <command> [options]`: each group's commands are in commands/. */
const GROUPS: Record<string, CommandGroup> = {
  admin: ADMIN,
  clock: CLOCK,
  faults: FAULTS,
  fixtures: FIXTURES,
  trigger: TRIGGER,
};

async function withDatabase(config: Config, fn: (deps: CommandDeps) => Promise<object>): Promise<object> {
  const connection = await connect(config, 2);
  try {
    // Jobs are only queued here, in this process's transactions; the server's workers run them.
    const jobs = new Jobs(connection.url);
    // What a command writes for a website is stamped with the website's time, as the server's is.
    const clock = new ShiftedClock(systemClock);
    await loadShifts(connection.db, clock);
    return await fn({
      db: connection.db,
      pool: connection.pool,
      clock,
      ids: randomIds,
      jobs,
      baseUrl: config.baseUrl,
      documents: productDocuments(CLI_CACHE_BYTES),
      lists: new ListCache(),
      orders: orderCaches(),
      storage: await imageStorage(config),
      webhooks: webhookSettings(await serverSecret(connection.db, 'webhook'), config.webhookAllowPrivate),
      // Orders a command places (sample orders) queue their confirmation as the server's would.
      emails: emailSettings(config),
    });
  } finally {
    await connection.shutdown();
  }
}

/** The commands that run a process, with what they do; the admin commands follow them in the help. */
const PROCESSES = {
  serve: 'runs the service: the API, the store, the owner pages and the workers',
  worker: 'runs image jobs and webhook deliveries only, no API',
  migrate: 'brings the database schema up to date',
  help: 'prints this help (so do --help and -h after any command)',
};

/** Every command with its options, one line each. */
function usage(): string {
  const width = Math.max(...Object.keys(PROCESSES).map((name) => name.length)) + 2;
  return [
    'usage: emporium <command> [options]',
    ...Object.entries(PROCESSES).map(([name, what]) => `  ${name.padEnd(width)}${what}`),
    ...Object.entries(GROUPS).flatMap(([group, commands]) =>
      Object.entries(commands).map(([name, command]) => `  ${group} ${name} ${command.synopsis}`),
    ),
    'Settings come from the environment (PORT, DATA_DIR, DATABASE_URL, ...): see docs/configuration.md.',
  ].join('\n');
}

const HELP = new Set(['help', '--help', '-h']);

async function main(argv: string[]): Promise<number> {
  const [name, sub, ...rest] = argv;
  // `emporium help`, or --help anywhere: what a user types first to find the commands.
  if ((name !== undefined && HELP.has(name)) || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  try {
    // main.ts (the whole app: HTTP, S3, image processing) is loaded only by the two commands that
    // run it: an admin command starts in about a third less time without it.
    if (name === 'serve' && sub === undefined) {
      const { serve } = await import('./main.ts');
      await serve(loadConfig());
      return -1; // keeps running until a signal
    }
    if (name === 'worker' && sub === undefined) {
      const { work } = await import('./main.ts');
      await work(loadConfig());
      return -1; // keeps running until a signal
    }
    if (name === 'migrate' && sub === undefined) {
      const output = await withDatabase(loadConfig(), async () => ({ migrated: true }));
      process.stdout.write(`${JSON.stringify(output)}\n`);
      return 0;
    }
    // Own properties only: `emporium __proto__ toString` names no command.
    const group = name && Object.hasOwn(GROUPS, name) ? GROUPS[name] : undefined;
    const command = group && sub && Object.hasOwn(group, sub) ? group[sub] : undefined;
    if (!command) {
      const unknown = name ? `unknown command: ${[name, sub].filter(Boolean).join(' ')}` : 'no command';
      // Within a known group, its commands are named (for `trigger`, the webhook topics).
      const known = group ? `; the ${name} commands are: ${Object.keys(group).join(', ')}` : '';
      throw new UsageError(unknown + known);
    }
    const { one, lists } = parseOptions(command, rest);
    const output = await withDatabase(loadConfig(), (deps) => command.run(deps, one, lists));
    process.stdout.write(`${JSON.stringify(output)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`emporium: ${error.message}\n${usage()}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`emporium: configuration: ${error.message}\n`);
      return 2;
    }
    if (error instanceof DomainError) {
      process.stdout.write(`${JSON.stringify({ error: { message: error.message } })}\n`);
      return 1;
    }
    // What an operator can act on (an unreachable database, a folder the database may not use),
    // not a stack trace.
    process.stderr.write(`emporium: ${oneLine(error)}\n`);
    return 1;
  }
}

/** An error as one line: its message (or only a code, as some connection errors have). */
function oneLine(error: unknown): string {
  const { message, code } = (error ?? {}) as { message?: string; code?: string };
  return (message || code || String(error)).replace(/\s*\n\s*/g, ' ');
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
