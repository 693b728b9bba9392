#!/usr/bin/env node
// Checks the project's Markdown: every relative link leads to a file that exists and, with a
// `#anchor`, to a heading of it; every page of docs/ is linked from the README. Run by
// `npm run check`; prints each broken link and exits 1.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const docs = fs
  .readdirSync(path.join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => path.join('docs', name));
const pages = [
  'README.md',
  ...docs,
  'bench/README.md',
  'packages/sdk/README.md',
  ...fs
    .readdirSync(path.join(root, 'examples'))
    .map((name) => path.join('examples', name, 'README.md'))
    .filter((file) => fs.existsSync(path.join(root, file))),
];

/** The text of a page outside its code blocks, where links and headings are read. */
function prose(file) {
  let fenced = false;
  return fs
    .readFileSync(path.join(root, file), 'utf8')
    .split('\n')
    .filter((line) => {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      return !fenced;
    });
}

/** The anchors of a page's headings, as GitHub makes them (a repeated one gets -1, -2, ...). */
function anchors(file) {
  const seen = new Map();
  const found = new Set();
  for (const line of prose(file)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count ? `${base}-${count}` : base);
  }
  return found;
}

const problems = [];
const linkedFromReadme = new Set();
for (const page of pages) {
  for (const [number, line] of prose(page).entries()) {
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split('#');
      const resolved = file ? path.normalize(path.join(path.dirname(page), file)) : page;
      if (page === 'README.md') linkedFromReadme.add(resolved);
      const where = `${page}:${number + 1}: ${target}`;
      if (!fs.existsSync(path.join(root, resolved))) problems.push(`${where}: no such file`);
      else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
        problems.push(`${where}: no heading with that anchor in ${resolved}`);
      }
    }
  }
}
for (const page of docs) {
  if (!linkedFromReadme.has(page)) problems.push(`${page}: not linked from README.md`);
}
for (const problem of problems) console.error(problem);
process.exit(problems.length ? 1 : 0);
