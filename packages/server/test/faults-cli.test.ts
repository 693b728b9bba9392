import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { freshDatabase } from './helpers/database.ts';
import { runCli } from './helpers/process.ts';
import { testApp, type TestContext } from './helpers/test-app.ts';

let url: string;
let ctx: TestContext;
before(async () => {
  url = await freshDatabase();
  ctx = await testApp({ databaseUrl: url, logLevel: 'silent' });
});
after(() => ctx.close());

const cli = (...args: string[]) => runCli(args, { DATABASE_URL: url });

test('faults add, list and clear; the running server hears of each', async () => {
  const site = await ctx.site();
  const heard = () =>
    new Promise<void>((resolve) => {
      const listener = (kind: string, key: string) => {
        if (kind !== 'fault_rules' || key !== site.websiteId) return;
        ctx.changes!.off('change', listener);
        resolve();
      };
      ctx.changes!.on('change', listener);
    });
  const added = heard();
  const add = await cli(
    'faults',
    'add',
    '--website',
    site.websiteId,
    '--match',
    'GET /1.1/commerce/products*',
    '--status',
    '429',
    '--retry-after',
    '30',
    '--count',
    '2',
  );
  assert.equal(add.code, 0, add.stderr);
  const rule = JSON.parse(add.stdout);
  assert.equal(rule.status, 429);
  assert.equal(rule.remaining, 2);
  await added;
  await ctx.api.faults.reloadWebsite(site.websiteId); // the feed's own reload may still be reading
  const res = await site.call({ method: 'GET', url: '/1.1/commerce/products' });
  assert.equal(res.statusCode, 429);
  assert.equal(res.headers['retry-after'], '30');

  const reset = await cli('faults', 'add', '--website', site.websiteId, '--match', '/v2/*', '--reset');
  assert.equal(reset.code, 0, reset.stderr);
  assert.equal(JSON.parse(reset.stdout).effect, 'reset');

  const list = JSON.parse((await cli('faults', 'list', '--website', site.websiteId)).stdout);
  assert.deepEqual(
    list.faults.map((f: { match: string; remaining: number | null }) => [f.match, f.remaining]),
    [
      ['GET /1.1/commerce/products*', 1],
      ['/v2/*', null],
    ],
  );

  const one = await cli('faults', 'clear', '--website', site.websiteId, '--id', rule.id);
  assert.deepEqual(JSON.parse(one.stdout), { removed: 1 });
  const cleared = heard();
  const all = await cli('faults', 'clear', '--website', site.websiteId);
  assert.deepEqual(JSON.parse(all.stdout), { removed: 1 });
  await cleared;
  await ctx.api.faults.reloadWebsite(site.websiteId);
  assert.equal((await site.call({ method: 'GET', url: '/1.1/commerce/products' })).statusCode, 200);
});

test('a bad rule is refused with the field named, and a bad number as a usage error', async () => {
  const site = await ctx.site();
  const bad = await cli('faults', 'add', '--website', site.websiteId, '--match', '/1.1/*', '--status', '418');
  assert.equal(bad.code, 1);
  assert.match(JSON.parse(bad.stdout).error.message, /^status:/);
  const usage = await cli(
    'faults',
    'add',
    '--website',
    site.websiteId,
    '--match',
    '/1.1/*',
    '--count',
    'two',
  );
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--count/);
  const none = JSON.parse((await cli('faults', 'list', '--website', site.websiteId)).stdout);
  assert.deepEqual(none.faults, []);
});
