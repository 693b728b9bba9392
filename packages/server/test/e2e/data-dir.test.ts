import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { processesOf } from '../helpers/proc.ts';
import { runCli, startServer, type Server } from '../helpers/process.ts';
import { TempFolders } from '../helpers/temp-folders.ts';

/**
 * As root the embedded database runs as the user postgres, which must reach DATA_DIR/postgres.
 * DATA_DIR folders of mode 0700 are made by mktemp -d, as here, and by many container volumes.
 */
const asRoot = process.getuid?.() === 0;
const folders = new TempFolders();
let server: Server | undefined;

after(async () => {
  try {
    if (server && server.child.exitCode === null) await server.stop();
  } finally {
    folders.removeAll();
  }
});

test(
  'as root, a DATA_DIR of mode 0700 is opened to the database user alone, with one line saying so, and the server starts',
  { skip: !asRoot && 'needs root' },
  async () => {
    const dataDir = folders.make('emporium-datadir-');
    assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700);
    server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '' });
    const said = server
      .stdout()
      .split('\n')
      .filter((line) => line.includes('DATA_DIR'));
    assert.deepEqual(said, [
      `emporium: DATA_DIR ${dataDir}: gave the database user postgres search permission (now mode 0710, group postgres)`,
    ]);
    const stat = fs.statSync(dataDir);
    assert.equal(stat.mode & 0o777, 0o710, 'no one but the group postgres gained anything');
    assert.equal(stat.uid, 0);
    assert.equal(await server.stop(), 0);
    assert.deepEqual(processesOf(dataDir), []);
  },
);

test(
  'as root, a DATA_DIR inside a folder the database user cannot enter stops start-up with one line naming DATA_DIR and the fix',
  { skip: !asRoot && 'needs root' },
  async () => {
    const closed = folders.make('emporium-datadir-');
    const dataDir = path.join(closed, 'data');
    const result = await runCli(['serve'], { DATA_DIR: dataDir, DATABASE_URL: '' });
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `emporium: DATA_DIR ${dataDir}: the database runs as the user postgres, which cannot enter ${closed}; ` +
        `use a DATA_DIR outside it (e.g. /var/lib/emporium) or allow it in (chmod o+x ${closed})\n`,
    );
    assert.equal(fs.statSync(closed).mode & 0o777, 0o700, 'a folder above DATA_DIR is left as it was');
    assert.deepEqual(processesOf(dataDir), []);
  },
);
