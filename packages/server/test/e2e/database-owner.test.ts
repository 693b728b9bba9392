import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { postmasterPid, processesOf, running, until } from '../helpers/proc.ts';
import { runCli, startServer, type Server } from '../helpers/process.ts';
import { TempFolders } from '../helpers/temp-folders.ts';

/**
 * The embedded database never outlives the service: whoever owns it stops it, a server killed with
 * SIGKILL has it stopped for it, and the next start takes over one that is still running.
 */
const folders = new TempFolders();
const servers: Server[] = [];

after(async () => {
  try {
    for (const server of servers) if (server.child.exitCode === null) await server.stop();
    // A test that failed half-way may leave its database running: a fast shutdown, by its pid.
    for (const folder of folders.made) {
      const pid = fs.existsSync(path.join(folder, 'postgres', 'postmaster.pid'))
        ? postmasterPid(path.join(folder, 'postgres'))
        : 0;
      if (pid && running(pid)) process.kill(pid, 'SIGINT');
      await until(
        () => processesOf(folder),
        (left) => left.length === 0,
        30_000,
      );
    }
  } finally {
    folders.removeAll();
  }
});

async function start(folder: string): Promise<Server> {
  const server = await startServer({ DATA_DIR: folder, DATABASE_URL: '' });
  servers.push(server);
  return server;
}

async function kill(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await until(
    () => running(pid),
    (alive) => !alive,
    10_000,
  );
}

async function assertStops(pid: number, message: string): Promise<void> {
  const alive = await until(
    () => running(pid),
    (still) => !still,
    30_000,
  );
  assert.equal(alive, false, message);
}

async function assertNothingLeft(folder: string): Promise<void> {
  const left = await until(
    () => processesOf(folder),
    (pids) => pids.length === 0,
    30_000,
  );
  assert.deepEqual(left, [], `processes of ${folder} left running`);
}

test('a server killed with SIGKILL does not leave its database running; the next start has one of its own and stops it', async () => {
  const folder = folders.make('emporium-owner-');
  const pgdata = path.join(folder, 'postgres');
  const first = await start(folder);
  const database = postmasterPid(pgdata);
  await kill(first.child.pid!);
  await assertStops(database, 'the database stopped once its server died');
  await assertNothingLeft(folder);

  const second = await start(folder);
  const next = postmasterPid(pgdata);
  // The CLI beside it attaches, and leaves the server's database running.
  const cli = await runCli(['migrate'], { DATA_DIR: folder, DATABASE_URL: '' });
  assert.equal(cli.code, 0, cli.stderr);
  assert.equal(running(next), true, 'the CLI did not stop the server database');
  assert.equal(await second.stop(), 0);
  // At once: not later, by the guard.
  assert.equal(running(next), false, 'its SIGTERM stopped the database');
  await assertNothingLeft(folder);
});

test('a database left running by a killed server (and guard) is taken over by the next start, whose SIGTERM stops it', async () => {
  const folder = folders.make('emporium-owner-');
  const pgdata = path.join(folder, 'postgres');
  const first = await start(folder);
  const database = postmasterPid(pgdata);
  const guards = processesOf(folder).filter((pid) =>
    fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('emporium-database-guard'),
  );
  assert.equal(guards.length, 1, 'one guard watches the server');
  await kill(guards[0]!);
  await kill(first.child.pid!);
  assert.equal(running(database), true, 'nothing stopped the database');

  const second = await start(folder);
  assert.equal(postmasterPid(pgdata), database, 'the next start attached to the running database');
  assert.equal(await second.stop(), 0);
  assert.equal(running(database), false, 'its SIGTERM stopped the database it took over');
  await assertNothingLeft(folder);
});
