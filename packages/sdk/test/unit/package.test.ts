import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without types
import { OUTPUT, generatedTypes } from '../../scripts/generate.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('src/generated/openapi.ts is what openapi.json generates (run `npm run generate -w @emporium/sdk`)', async () => {
  assert.equal(fs.readFileSync(OUTPUT, 'utf8'), await generatedTypes());
});

test('the built package exports the public API under its name, and the Node helpers under /node', async () => {
  const sdk = await import('@emporium/sdk');
  for (const name of [
    'Emporium',
    'EmporiumOAuth',
    'MemoryTokenStore',
    'verifyWebhook',
    'EmporiumError',
    'AccessDenied',
    'ReauthorizationRequired',
    'OAuthError',
    'AuthenticationError',
    'PermissionError',
    'NotFoundError',
    'ConflictError',
    'RateLimitError',
    'ValidationError',
    'ServerError',
  ]) {
    assert.equal(typeof (sdk as Record<string, unknown>)[name], 'function', name);
  }
  const node = await import('@emporium/sdk/node');
  assert.equal(typeof node.JsonFileTokenStore, 'function');
  assert.equal(typeof node.fileFromPath, 'function');
  assert.equal(node.Emporium, sdk.Emporium, 'the same classes, so instanceof works across both entries');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const entry of Object.values(pkg.exports) as (string | { types: string; import: string })[]) {
    if (typeof entry === 'string') continue;
    assert.ok(fs.existsSync(path.join(root, entry.types)), entry.types);
    assert.ok(fs.existsSync(path.join(root, entry.import)), entry.import);
  }
});

test('the browser entry imports nothing of Node: every module it reaches imports only relative files', () => {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = fs.readFileSync(file, 'utf8');
    for (const [, specifier] of code.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/g,
    )) {
      assert.ok(
        specifier!.startsWith('./') || specifier!.startsWith('../'),
        `${path.relative(root, file)} imports ${specifier}`,
      );
      visit(path.resolve(path.dirname(file), specifier!));
    }
    assert.doesNotMatch(code, /\brequire\(|\bBuffer\b/, path.relative(root, file));
  };
  visit(path.join(root, 'dist/index.js'));
  assert.ok(seen.size > 10, 'the walk followed the imports');
  assert.ok(![...seen].some((f) => f.endsWith('node.js')), 'the Node helpers stay out');
});
