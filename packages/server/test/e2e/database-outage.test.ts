import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { startEmbedded, type EmbeddedServer } from '../../src/db/embedded.ts';
import { assertAllPresent, Load } from '../helpers/outage-load.ts';
import { postmasterPid, processesOf, until } from '../helpers/proc.ts';
import { startServer, type Server } from '../helpers/process.ts';
import { TempFolders } from '../helpers/temp-folders.ts';

/**
 * The real process under load while its PostgreSQL server is killed: requests answer 503 in the
 * documented body while the database is away, and nothing else; the process lives on, serves
 * again once the database is back, and every product it acknowledged is still there.
 */
const folders = new TempFolders();
const servers: Server[] = [];
const databases: EmbeddedServer[] = [];

after(async () => {
  try {
    for (const server of servers) if (server.child.exitCode === null) await server.stop();
    for (const database of databases) await database.stop();
  } finally {
    folders.removeAll();
  }
});

async function start(env: Record<string, string>): Promise<Server> {
  const server = await startServer({ ...env, RATE_LIMIT_PER_MINUTE: '1000000' });
  servers.push(server);
  return server;
}

function siteOf(server: Server) {
  const apiKey = /API key +(emp_key_\S+)/.exec(server.stdout())?.[1];
  const storePageId = /store page ([0-9a-f]{24})/.exec(server.stdout())?.[1];
  assert.ok(apiKey && storePageId, server.stdout());
  return { baseUrl: server.baseUrl, apiKey, storePageId };
}

/**
 * Runs the load through an outage: `kill` takes the database away once requests succeed, and
 * `revive` (if given) brings it back once a request has been answered 503.
 */
async function throughOutage(t: TestContext, server: Server, kill: () => void, revive?: () => Promise<void>) {
  const site = siteOf(server);
  const load = new Load(site);
  let exited = false;
  server.child.once('exit', () => (exited = true));
  let before: number;
  let created: number;
  try {
    await until(
      () => load.successes,
      (n) => n >= 20,
      30_000,
    );
    kill();
    await until(
      () => load.unavailable,
      (n) => n > 0,
      30_000,
    );
    await revive?.();
    // Writes, since reads may be answered from memory while the database is away.
    before = load.created.length;
    created = await until(
      () => load.created.length,
      (n) => n >= before + 10,
      60_000,
    );
  } finally {
    await load.stop();
  }
  assert.equal(exited, false, `the server exited:\n${server.stdout().slice(-3000)}`);
  const errors = server
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"level":50'))
    .map((line) => JSON.parse(line).err?.message);
  assert.deepEqual(
    load.failures.slice(0, 5),
    [],
    `only 503s in the documented body while the database is away; the log:\n${errors.slice(0, 5).join('\n')}`,
  );
  assert.ok(load.unavailable > 0, 'some requests met the outage');
  assert.ok(created >= before + 10, `products are created again after the outage (${created - before})`);
  const { first, last } = load.unavailableFrom;
  t.diagnostic(
    `${load.requests} requests, ${load.created.length} products created, ${load.unavailable} answered 503 over ${last - first} ms`,
  );
  return { site, load };
}

test('the embedded database killed under load: 503s while it is away, the server restarts it, and no created product is lost', async (t) => {
  const dataDir = folders.make('emporium-outage-');
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
  const pgdata = path.join(dataDir, 'postgres');
  const server = await start(env);
  const killed = postmasterPid(pgdata);
  const { site, load } = await throughOutage(t, server, () => process.kill(killed, 'SIGKILL'));
  assert.notEqual(postmasterPid(pgdata), killed, 'a new postmaster serves the data folder');
  assert.match(server.stdout(), /emporium: the embedded database under \S+ had stopped; started it again\n/);
  await assertAllPresent(site, load.created);

  // A fresh process reads from the database alone, with nothing cached.
  assert.equal(await server.stop(), 0);
  const again = await start(env);
  await assertAllPresent({ ...site, baseUrl: again.baseUrl }, load.created);
  assert.equal(await again.stop(), 0);
  assert.deepEqual(processesOf(dataDir), [], 'no process of the data folder is left');
});

test('an external database killed under load and started again: 503s meanwhile, then the server reconnects and no created product is lost', async (t) => {
  const dbFolder = folders.make('emporium-external-db-');
  const database = await startEmbedded(dbFolder);
  databases.push(database);
  const port = Number(new URL(database.url).port);
  const env = { DATA_DIR: folders.make('emporium-external-data-'), DATABASE_URL: database.url };
  const server = await start(env);
  const pgdata = path.join(dbFolder, 'postgres');
  const { site, load } = await throughOutage(
    t,
    server,
    () => process.kill(postmasterPid(pgdata), 'SIGKILL'),
    async () => {
      // The killed server's backends linger a moment, holding its shared memory: it starts once they are gone.
      const again = await until(
        () => startEmbedded(dbFolder, { port }).catch((error: Error) => error),
        (result) => !(result instanceof Error),
        30_000,
      );
      assert.ok(!(again instanceof Error), String(again));
      databases.push(again);
    },
  );
  await assertAllPresent(site, load.created);

  assert.equal(await server.stop(), 0);
  const again = await start(env);
  await assertAllPresent({ ...site, baseUrl: again.baseUrl }, load.created);
  assert.equal(await again.stop(), 0);
});
