import { parseArgs } from 'node:util';
import { ListCache } from './catalog/list-cache.ts';
import { productDocuments } from './catalog/product-documents.ts';
import { systemClock } from './shared/clock.ts';
import { orderCaches } from './orders/order-caches.ts';
import { createOrder } from './orders/orders.service.ts';
import type { OrderDeps } from './orders/place-order.ts';
import { sampleOrderDraft } from './orders/sample-order.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { connect } from './db/connect.ts';
import { DomainError, NotFound } from './shared/errors.ts';
import { randomIds } from './shared/ids.ts';
import { Jobs } from './jobs/queue.ts';
import { createApiKey, revokeApiKey } from './sites/api-keys.service.ts';
import { createOwner } from './sites/owners.service.ts';
import { createWebsite } from './sites/websites.service.ts';
import { createStorePage } from './sites/store-pages.service.ts';
import { createClient } from './oauth/clients.service.ts';
import { revokeAccess } from './oauth/revocation.ts';

class UsageError extends Error {}

const CLI_CACHE_BYTES = 1024 * 1024;

type Options = Record<string, { type: 'string'; multiple?: boolean }>;
/** Option values: a string each, and a list each for the options that may be repeated. */
interface Values {
  one: Record<string, string>;
  lists: Record<string, string[]>;
}
type Deps = Parameters<typeof createOwner>[0] & Pick<OrderDeps, 'jobs' | 'pool' | 'baseUrl'>;

interface Command {
  /** Its options as the help shows them. */
  synopsis: string;
  options: Options;
  required: string[];
  run(deps: Deps, values: Record<string, string>, lists: Record<string, string[]>): Promise<object>;
}

const ADMIN: Record<string, Command> = {
  'create-owner': {
    synopsis: '--email E --password P [--first-name F --last-name L]',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
    },
    required: ['email', 'password'],
    run: (deps, v) =>
      createOwner(deps, {
        email: v.email!,
        password: v.password!,
        firstName: v['first-name'],
        lastName: v['last-name'],
      }),
  },
  'create-website': {
    synopsis: '--owner E --title T [--currency USD] [--measurement-standard IMPERIAL|METRIC]',
    options: {
      owner: { type: 'string' },
      title: { type: 'string' },
      currency: { type: 'string' },
      'measurement-standard': { type: 'string' },
    },
    required: ['owner', 'title'],
    run: (deps, v) =>
      createWebsite(deps, {
        ownerEmail: v.owner!,
        title: v.title!,
        currency: v.currency,
        measurementStandard: v['measurement-standard'],
      }),
  },
  'create-store-page': {
    synopsis: '--website ID --title T',
    options: { website: { type: 'string' }, title: { type: 'string' } },
    required: ['website', 'title'],
    run: (deps, v) => createStorePage(deps, { websiteId: v.website!, title: v.title! }),
  },
  'create-api-key': {
    synopsis: '--website ID --scopes S1,S2 [--name N]',
    options: { website: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
    required: ['website', 'scopes'],
    run: async (deps, v) => {
      const { apiKey } = await createApiKey(deps, { websiteId: v.website!, scopes: v.scopes!, name: v.name });
      return { apiKey };
    },
  },
  'revoke-api-key': {
    synopsis: '--api-key K',
    options: { 'api-key': { type: 'string' } },
    required: ['api-key'],
    run: async (deps, v) => {
      if (!(await revokeApiKey(deps, v['api-key']!))) throw new NotFound('no live API key matches');
      return { revoked: true };
    },
  },
  'create-client': {
    synopsis: '--owner E --name N --redirect-uri U [--redirect-uri U2 ...] [--initiate-url U]',
    options: {
      owner: { type: 'string' },
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'initiate-url': { type: 'string' },
    },
    required: ['owner', 'name', 'redirect-uri'],
    run: (deps, v, lists) =>
      createClient(deps, {
        ownerEmail: v.owner!,
        name: v.name!,
        redirectUris: lists['redirect-uri']!,
        initiateUrl: v['initiate-url'],
      }),
  },
  'revoke-access': {
    synopsis: '--website ID --client ID',
    options: { website: { type: 'string' }, client: { type: 'string' } },
    required: ['website', 'client'],
    run: async (deps, v) => {
      await revokeAccess(deps, { websiteId: v.website!, clientId: v.client! });
      return { revoked: true };
    },
  },
  'create-order': {
    synopsis: '--website ID',
    options: { website: { type: 'string' } },
    required: ['website'],
    run: async (deps, v) => {
      // This process serves no reads: its caches live for one order, and the server's hear of
      // the change from the database (db/change-feed.ts).
      const orderDeps: OrderDeps = {
        ...deps,
        documents: productDocuments(CLI_CACHE_BYTES),
        lists: new ListCache(),
        orders: orderCaches(),
      };
      const draft = await sampleOrderDraft(deps, v.website!, deps.clock.now());
      const { json } = await createOrder(orderDeps, v.website!, draft);
      return json;
    },
  },
};

function parse(command: Command, args: string[]): Values {
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

async function withDatabase(config: Config, fn: (deps: Deps) => Promise<object>): Promise<object> {
  const connection = await connect(config, 2);
  try {
    // Jobs are only queued here, in this process's transactions; the server's workers run them.
    const jobs = new Jobs(connection.url);
    return await fn({
      db: connection.db,
      pool: connection.pool,
      clock: systemClock,
      ids: randomIds,
      jobs,
      baseUrl: config.baseUrl,
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
    ...Object.entries(ADMIN).map(([name, command]) => `  admin ${name} ${command.synopsis}`),
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
    const command = name === 'admin' && sub ? ADMIN[sub] : undefined;
    if (!command)
      throw new UsageError(name ? `unknown command: ${[name, sub].filter(Boolean).join(' ')}` : 'no command');
    const { one, lists } = parse(command, rest);
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
