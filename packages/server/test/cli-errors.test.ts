import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { freshDatabase } from './helpers/database.ts';
import { runCli } from './helpers/process.ts';

// Apart from cli.test.ts so that the two halves of the CLI's tests, each a few minutes of
// processes started one after another, run side by side.
let env: Record<string, string>;
before(async () => {
  env = { DATABASE_URL: await freshDatabase() };
});

const cli = (...args: string[]) => runCli(args, env);
const json = (stdout: string) => JSON.parse(stdout.trim());

describe('emporium admin and migrate: refusals and exit codes', () => {
  test('a rule broken is exit code 1 with a JSON error on stdout, and nothing written', async () => {
    const dup = await cli(
      'admin',
      'create-owner',
      '--email',
      'twice@example.com',
      '--password',
      'long enough password',
    );
    assert.equal(dup.code, 0);
    const again = await cli(
      'admin',
      'create-owner',
      '--email',
      'TWICE@example.com',
      '--password',
      'long enough password',
    );
    assert.equal(again.code, 1);
    assert.match(json(again.stdout).error.message, /exists already/);
    const unknown = await cli('admin', 'create-website', '--owner', 'nobody@example.com', '--title', 'X');
    assert.equal(unknown.code, 1);
    assert.match(json(unknown.stdout).error.message, /owner not found/);
    const scope = await cli(
      'admin',
      'create-api-key',
      '--website',
      'ffffffffffffffffffffffff',
      '--scopes',
      'website.everything',
    );
    assert.equal(scope.code, 1);
    assert.match(json(scope.stdout).error.message, /unknown scope "website.everything"/);
    const revoke = await cli('admin', 'revoke-api-key', '--api-key', 'emp_key_unknown');
    assert.equal(revoke.code, 1);
  });

  test('an unknown command, a missing or unknown option: usage on stderr, exit code 2', async () => {
    for (const args of [
      [],
      ['frobnicate'],
      ['admin', 'create-owner', '--email', 'a@b.co'],
      ['admin', 'create-owner', '--email', 'a@b.co', '--password', 'x', '--admin'],
      ['admin'],
    ]) {
      const result = await cli(...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}`);
      assert.match(result.stderr, /usage: emporium/);
      assert.equal(result.stdout, '');
    }
  });

  test('help: --help, -h, help and admin --help print every command with its options and exit 0', async () => {
    for (const args of [
      ['--help'],
      ['-h'],
      ['help'],
      ['admin', '--help'],
      ['admin', 'create-owner', '--help'],
    ]) {
      // No database is needed to read the help, nor a valid setting.
      const result = await runCli(args, { PORT: 'eighty' });
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr, '');
      const lines = result.stdout.split('\n');
      assert.match(lines[0]!, /^usage: emporium <command> \[options\]$/);
      for (const command of ['serve', 'worker', 'migrate', 'help']) {
        assert.ok(
          lines.some((line) => line.startsWith(`  ${command} `)),
          `${command} listed`,
        );
      }
      for (const line of [
        '  admin create-owner --email E --password P [--first-name F --last-name L]',
        '  admin create-client --owner E --name N --redirect-uri U [--redirect-uri U2 ...] [--initiate-url U]',
        '  admin revoke-access --website ID --client ID',
        '  admin create-order --website ID',
      ]) {
        assert.ok(lines.includes(line), line);
      }
    }
  });

  test('bad configuration stops with one clear line', async () => {
    const result = await runCli(['migrate'], { ...env, PORT: 'eighty' });
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr.trim(),
      'emporium: configuration: PORT must be a whole number from 0 to 65535, got "eighty"',
    );
  });

  test('migrate reports success and is idempotent', async () => {
    for (let i = 0; i < 2; i++) {
      const result = await cli('migrate');
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(json(result.stdout), { migrated: true });
    }
  });
});
