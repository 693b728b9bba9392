import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { swatchPicture } from '../src/media/images.ts';
import { freshDatabase } from './helpers/database.ts';
import { richFixture } from './helpers/fixtures.ts';
import { runCli } from './helpers/process.ts';
import { TempFolders } from './helpers/temp-folders.ts';

const folders = new TempFolders();
let env: Record<string, string>;
let folder: string;
before(async () => {
  folder = folders.make('fixtures-cli-');
  env = { DATABASE_URL: await freshDatabase(), DATA_DIR: folders.make('fixtures-cli-data-') };
});
after(() => folders.removeAll());

const cli = (...args: string[]) => runCli(args, env);
const json = (stdout: string) => JSON.parse(stdout.trim());

async function owner(email: string): Promise<string> {
  const made = await cli('admin', 'create-owner', '--email', email, '--password', 'long enough password');
  assert.equal(made.code, 0, made.stderr);
  return email;
}

describe('emporium fixtures', () => {
  test('load prints the new site with its keys and app secrets; export writes it to a file or to stdout', async () => {
    const fixture = richFixture();
    // A picture file beside the fixture, named relative to it.
    fs.writeFileSync(path.join(folder, 'tote.png'), await swatchPicture('#336699', 40));
    fixture.products![1]!.images = [{ file: 'tote.png', altText: 'A candle' }];
    const file = path.join(folder, 'site.json');
    fs.writeFileSync(file, JSON.stringify(fixture));

    const loaded = await cli('fixtures', 'load', '--file', file, '--owner', await owner('load@example.com'));
    assert.equal(loaded.code, 0, loaded.stderr + loaded.stdout);
    const site = json(loaded.stdout);
    assert.match(site.websiteId, /^[0-9a-f]{24}$/);
    assert.match(site.apiKeys[0].apiKey, /^emp_key_/);
    assert.match(site.apps[0].clientSecret, /^emp_cs_/);
    assert.match(site.apps[0].grant.accessToken, /^emp_at_/);

    const out = path.join(folder, 'exported.json');
    const exported = await cli('fixtures', 'export', '--website', site.websiteId, '--file', out);
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.deepEqual(json(exported.stdout), { websiteId: site.websiteId, file: out });
    const written = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(written.website.title, 'Fixture Pottery');
    assert.deepEqual(written.products[1].images, [
      { generate: { colour: '#336699', size: 40 }, altText: 'A candle' },
    ]);
    assert.doesNotMatch(fs.readFileSync(out, 'utf8'), /emp_(key|cs|at|rt)_/);

    const printed = await cli('fixtures', 'export', '--website', site.websiteId);
    assert.equal(printed.code, 0, printed.stderr);
    assert.deepEqual(json(printed.stdout), written);

    // The export loads again, for another owner.
    const again = await cli('fixtures', 'load', '--file', out, '--owner', await owner('again@example.com'));
    assert.equal(again.code, 0, again.stderr + again.stdout);
  });

  test('a malformed fixture is exit code 1 with the JSON path of the error, and no website is made', async () => {
    const email = await owner('refused@example.com');
    const fixture = richFixture();
    Object.assign(fixture.products![0]!.variants![0]!.pricing.basePrice, { value: false });
    const file = path.join(folder, 'bad.json');
    fs.writeFileSync(file, JSON.stringify(fixture));
    const refused = await cli('fixtures', 'load', '--file', file, '--owner', email);
    assert.equal(refused.code, 1);
    assert.match(
      json(refused.stdout).error.message,
      /^products\[0\]\.variants\[0\]\.pricing\.basePrice\.value: /,
    );

    const notJson = path.join(folder, 'not.json');
    fs.writeFileSync(notJson, '{"website": ');
    const unparsed = await cli('fixtures', 'load', '--file', notJson, '--owner', email);
    assert.equal(unparsed.code, 1);
    assert.match(json(unparsed.stdout).error.message, /^file: .*not\.json is not JSON/);

    const missing = await cli('fixtures', 'load', '--file', path.join(folder, 'none.json'), '--owner', email);
    assert.equal(missing.code, 1);
    assert.match(json(missing.stdout).error.message, /^file: cannot read .*none\.json: ENOENT/);

    // Nothing was loaded for this owner: a good fixture loads and makes the owner's first website.
    const good = path.join(folder, 'good.json');
    fs.writeFileSync(good, JSON.stringify({ website: { title: 'Only one' } }));
    const loaded = await cli('fixtures', 'load', '--file', good, '--owner', email);
    assert.equal(loaded.code, 0, loaded.stderr);
    const exported = await cli('fixtures', 'export', '--website', json(loaded.stdout).websiteId);
    assert.equal(json(exported.stdout).website.title, 'Only one');
  });

  test('a missing option is a usage error (exit code 2); an unknown website is exit code 1', async () => {
    const usage = await cli('fixtures', 'load', '--file', 'site.json');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing --owner/);
    assert.match(usage.stderr, /fixtures load --file site\.json --owner E/);
    const unknown = await cli('fixtures', 'export', '--website', 'ffffffffffffffffffffffff');
    assert.equal(unknown.code, 1);
    assert.match(json(unknown.stdout).error.message, /website not found/);
  });
});
