import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/*
 * The layers of docs/architecture.md hold: a folder of src/ imports only from itself and from
 * folders on lower lines of the picture, and the top-level files are imported by none. The
 * picture is read from the page itself, so the page and the rule cannot drift apart.
 */

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(SERVER, 'src');
const ARCHITECTURE = path.resolve(SERVER, '../../docs/architecture.md');
/** The unit of the files directly in src/. */
const TOP = 'src/*.ts';

/** The layers, highest first: the fenced block after the `<!-- layers` marker, folders before the dash. */
function layers(): string[][] {
  const page = fs.readFileSync(ARCHITECTURE, 'utf8');
  const block = /<!-- layers[^\n]*-->\s*```text\n([\s\S]*?)```/.exec(page);
  assert.ok(block, 'docs/architecture.md holds the layers picture after its <!-- layers --> marker');
  return block[1]!
    .split('\n')
    .map((line) => line.split('—')[0]!.trim())
    .filter(Boolean)
    .map((units) => units.split(/\s+/).map((unit) => unit.replace(/\/$/, '')));
}

function sourceFiles(folder: string): string[] {
  return fs
    .readdirSync(folder, { withFileTypes: true, recursive: true })
    .flatMap((entry) =>
      entry.isFile() && entry.name.endsWith('.ts')
        ? [path.join(entry.parentPath ?? entry.path, entry.name)]
        : [],
    );
}

/** A file's unit: its top folder under src/, or TOP for the files directly in src/. */
function unitOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length === 1 ? TOP : parts[0]!;
}

/** Every relative module a file names: static imports, `export ... from`, dynamic `import()`. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)];
  return specifiers.map((match) => path.resolve(path.dirname(file), match[1]!));
}

test('the layers picture names every folder of src/ once, and nothing else', () => {
  const named = layers().flat();
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  assert.deepEqual([...named].sort(), [TOP, ...folders].sort());
  assert.equal(new Set(named).size, named.length, 'a folder on two lines');
});

/** Each import of `edges` (file, imported file) that leaves its folder for one not below it. */
function upwardImports(edges: [string, string][]): string[] {
  const rank = new Map(layers().flatMap((line, i) => line.map((unit) => [unit, i] as const)));
  return edges.flatMap(([file, target]) => {
    const from = unitOf(file);
    const to = unitOf(target);
    const upward = to !== from && (to === TOP || rank.get(to)! <= rank.get(from)!);
    return upward ? [`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`] : [];
  });
}

test('no import runs back up the layers: each goes to its own folder or a lower line', () => {
  const edges = sourceFiles(SRC).flatMap((file) =>
    importsOf(file).map((target): [string, string] => [file, target]),
  );
  assert.ok(edges.length > 1000, `the imports of src/ were read (${edges.length})`);
  assert.deepEqual(upwardImports(edges), []);
});

test('an import up a line, across one line, or to a top-level file is refused; one down is not', () => {
  const at = (file: string) => path.join(SRC, file);
  assert.deepEqual(
    upwardImports([
      [at('shared/money.ts'), at('orders/web-order.ts')],
      [at('catalog/v2/products-v2.routes.ts'), at('customers/contacts.service.ts')],
      [at('sites/websites.service.ts'), at('deps.ts')],
      [at('orders/web-order.ts'), at('shared/money.ts')],
      [at('catalog/v2/products-v2.routes.ts'), at('catalog/products.service.ts')],
      [at('main.ts'), at('app.ts')],
    ]),
    [
      'shared/money.ts -> orders/web-order.ts',
      'catalog/v2/products-v2.routes.ts -> customers/contacts.service.ts',
      'sites/websites.service.ts -> deps.ts',
    ],
  );
});
