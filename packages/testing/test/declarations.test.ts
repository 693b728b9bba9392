import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/*
 * The built declarations as an app's type check reads them: with the options of a plain app
 * (no importing of `.ts` paths), through the server's declarations in dist/server, never the
 * server's TypeScript sources.
 */

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(PACKAGE, 'dist');

/** A test file of an app: each server type in use, each @ts-expect-error a shape it must keep. */
const APP = `
import type { EmailKind, Fault, FaultRule, LoggedRequest, SiteTime, StoreEmail, TriggerOptions } from '@emporium/testing';
import { startEmporium } from '@emporium/testing';

const store = await startEmporium();
const options: TriggerOptions = { sku: 'SKU-1', quantity: 2, orderId: '1', action: 'FULFILLED' };
await store.trigger('order.create', 'w', options);
// @ts-expect-error: no such option
const unknown: TriggerOptions = { colour: 'red' };
const rule: FaultRule = { match: 'POST /1.0/commerce/orders*', status: 503, probability: 0.5 };
// @ts-expect-error: 404 is no fault status
const notFound: FaultRule = { match: '/1.0/x', status: 404 };
const fault: Fault = await store.faults.add('w', rule);
// @ts-expect-error: an effect the server does not have
const effect: Fault['effect'] = 'drop';
const kind: EmailKind = 'refund_notice';
// @ts-expect-error: a kind the server does not send
const other: EmailKind = 'newsletter';
const [email]: StoreEmail[] = await store.emails('w', { kind });
const created: Date | undefined = email?.createdOn;
// @ts-expect-error: the status is the server's
const status: NonNullable<typeof email>['status'] = 'LOST';
const [request]: LoggedRequest[] = await store.requests('w', { status: '5xx' });
const kindOfCredential: 'api_key' | 'oauth' | undefined = request?.credential.kind;
// @ts-expect-error: the body is text
const body: number | null | undefined = request?.requestBody;
const time: SiteTime = await store.siteTime('w');
const shift: number = time.shiftMs;
export { unknown, notFound, fault, effect, other, created, status, kindOfCredential, body, shift };
`;

test('an app type-checks its tests against the built declarations, not the server sources', () => {
  const file = path.join(PACKAGE, 'test', 'app-types.ts');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? APP : readFile.call(host, name));
  host.getSourceFile = (name, language, ...rest) =>
    name === file
      ? ts.createSourceFile(name, APP, language)
      : getSourceFile.call(host, name, language, ...rest);
  const program = ts.createProgram([file], options, host);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(problems, []);
  const sources = program.getSourceFiles();
  assert.ok(sources.some((source) => source.fileName.startsWith(path.join(DIST, 'server') + path.sep)));
  assert.deepEqual(
    sources.filter((source) => !source.isDeclarationFile && source.fileName !== file).map((s) => s.fileName),
    [],
    'no TypeScript source of the server is read',
  );
});

test('every server module the declarations name is in dist/server', () => {
  const named = fs
    .readdirSync(DIST)
    .filter((name) => name.endsWith('.d.ts'))
    .flatMap((name) => [
      ...fs.readFileSync(path.join(DIST, name), 'utf8').matchAll(/from '#server\/([^']+)\.ts'/g),
    ])
    .map((match) => match[1]!);
  assert.ok(named.length > 0);
  for (const module of named) {
    assert.ok(fs.existsSync(path.join(DIST, 'server', `${module}.d.ts`)), `dist/server/${module}.d.ts`);
  }
});
