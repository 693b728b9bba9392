import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { MemoryTokenStore, type TokenSet, type TokenStore } from '../../src/index.ts';
import { JsonFileTokenStore } from '../../src/node.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emporium-sdk-tokens-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const set = (n: number): TokenSet => ({
  accessToken: `at${n}`,
  accessTokenExpiresAt: 1_000 + n,
  refreshToken: `rt${n}`,
  refreshTokenExpiresAt: 2_000 + n,
});

async function behavesAsAStore(store: TokenStore) {
  assert.equal(await store.get('w1'), undefined);
  await store.set('w1', set(1));
  await store.set('w2', set(2));
  assert.deepEqual(await store.get('w1'), set(1));
  await store.set('w1', set(3));
  assert.deepEqual(await store.get('w1'), set(3));
  assert.deepEqual(await store.get('w2'), set(2));
  await store.delete('w1');
  assert.equal(await store.get('w1'), undefined);
  assert.deepEqual(await store.get('w2'), set(2));
  await store.delete('missing');
}

test('MemoryTokenStore: get, set, delete by key, and copies rather than shared objects', async () => {
  const store = new MemoryTokenStore();
  await behavesAsAStore(store);
  const tokens = set(5);
  await store.set('w', tokens);
  tokens.accessToken = 'changed';
  const read = (await store.get('w'))!;
  assert.equal(read.accessToken, 'at5');
  read.accessToken = 'changed too';
  assert.equal((await store.get('w'))!.accessToken, 'at5');
});

test('JsonFileTokenStore: get, set, delete by key, in a JSON file of mode 0600 that another instance reads', async () => {
  const file = path.join(dir, 'nested', 'tokens.json');
  await behavesAsAStore(new JsonFileTokenStore(file));
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { w2: set(2) });
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(await new JsonFileTokenStore(file).get('w2'), set(2));
});

test('JsonFileTokenStore: concurrent writes from one process lose no key, and leave no temporary file', async () => {
  const file = path.join(dir, 'concurrent.json');
  const store = new JsonFileTokenStore(file);
  await Promise.all(Array.from({ length: 30 }, (_, i) => store.set(`w${i}`, set(i))));
  const all = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(Object.keys(all).length, 30);
  assert.deepEqual(all.w17, set(17));
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
  );
});

test('JsonFileTokenStore writes atomically: a new file renamed over the old, never the old file rewritten', async () => {
  const file = path.join(dir, 'atomic.json');
  const store = new JsonFileTokenStore(file);
  await store.set('w', set(1));
  const before = fs.statSync(file).ino;
  // A reader holding the old file keeps reading a complete old version.
  const held = fs.openSync(file, 'r');
  await store.set('w', set(2));
  assert.notEqual(fs.statSync(file).ino, before, 'replaced by rename');
  assert.deepEqual(JSON.parse(fs.readFileSync(held, 'utf8')).w, set(1));
  fs.closeSync(held);
  assert.deepEqual(await store.get('w'), set(2));
});

test('JsonFileTokenStore: a failed write leaves the file as it was', async () => {
  const file = path.join(dir, 'failing.json');
  const store = new JsonFileTokenStore(file);
  await store.set('w', set(1));
  const original = fs.readFileSync(file, 'utf8');
  const rename = fs.promises.rename;
  fs.promises.rename = async () => {
    throw Object.assign(new Error('EXDEV'), { code: 'EXDEV' });
  };
  try {
    await assert.rejects(store.set('w', set(2)), /EXDEV/);
  } finally {
    fs.promises.rename = rename;
  }
  assert.equal(fs.readFileSync(file, 'utf8'), original);
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.startsWith('.failing')),
    [],
  );
  await store.set('w', set(3)); // the queue goes on after a failure
  assert.deepEqual(await store.get('w'), set(3));
});

test('JsonFileTokenStore syncs the directory after the rename, and goes on where directories cannot be synced', async () => {
  const file = path.join(dir, 'dirsync.json');
  const store = new JsonFileTokenStore(file);
  const { open, rename } = fs.promises;
  const log: string[] = [];
  fs.promises.rename = async (...args: Parameters<typeof rename>) => {
    log.push('rename');
    return rename(...args);
  };
  fs.promises.open = (async (target: string, ...rest: unknown[]) => {
    const handle = await (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(target, ...rest);
    if (target === dir) {
      log.push(`open dir ${String(rest[0])}`);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        log.push('sync dir');
        return sync();
      };
    }
    return handle;
  }) as typeof open;
  try {
    await store.set('w', set(1));
    assert.deepEqual(log, ['rename', 'open dir r', 'sync dir']);
    // Windows: a directory cannot be opened (EISDIR/EPERM); the write still succeeds.
    fs.promises.open = (async (target: string, ...rest: unknown[]) => {
      if (target === dir) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
      return (open as (...a: unknown[]) => Promise<fs.promises.FileHandle>)(target, ...rest);
    }) as typeof open;
    await store.set('w', set(2));
  } finally {
    fs.promises.open = open;
    fs.promises.rename = rename;
  }
  assert.deepEqual(await store.get('w'), set(2));
});
