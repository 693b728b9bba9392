/**
 * Node-only helpers: `import { JsonFileTokenStore, fileFromPath } from '@emporium/sdk/node'`.
 * Everything of the main entry is re-exported, so one import is enough in Node.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { TokenSet, TokenStore } from './tokens.js';

export * from './index.js';

/**
 * Tokens in one JSON file (`{ "<key>": TokenSet, ... }`, mode 0600). Each write goes to a
 * temporary file beside it, is flushed, then renamed over the file (and the directory flushed), so
 * a crash leaves the old file or the new one, never half of one. Writes from this process are serialized; several
 * processes sharing one file are not coordinated (let one process own each key).
 */
export class JsonFileTokenStore implements TokenStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  private async readAll(): Promise<Record<string, TokenSet>> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    return text.trim() === '' ? {} : (JSON.parse(text) as Record<string, TokenSet>);
  }

  private async writeAll(all: Record<string, TokenSet>): Promise<void> {
    const dir = path.dirname(this.file);
    await fs.mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `.${path.basename(this.file)}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await fs.open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(all, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(tmp, this.file);
    } catch (error) {
      await fs.rm(tmp, { force: true });
      throw error;
    }
    // The rename is a change to the directory: until the directory is synced too, a power cut
    // can bring back the old file after set() resolved.
    await syncDirectory(dir);
  }

  /** Runs read-modify-write steps one after the other. */
  private serialize<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step, step);
    this.queue = run.catch(() => undefined);
    return run;
  }

  async get(key: string): Promise<TokenSet | undefined> {
    await this.queue;
    return (await this.readAll())[key];
  }

  set(key: string, tokens: TokenSet): Promise<void> {
    return this.serialize(async () => {
      const all = await this.readAll();
      all[key] = { ...tokens };
      await this.writeAll(all);
    });
  }

  delete(key: string): Promise<void> {
    return this.serialize(async () => {
      const all = await this.readAll();
      if (!(key in all)) return;
      delete all[key];
      await this.writeAll(all);
    });
  }
}

/** Errors of platforms that cannot open or fsync a directory (Windows; some file systems). */
const DIRECTORY_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP', 'EBADF']);

async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (error) {
    // Nothing better can be done there: the rename itself has succeeded.
    if (!DIRECTORY_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/** A file as a File (a Blob with its name) for `client.products.images.upload`. */
export async function fileFromPath(file: string, contentType?: string): Promise<File> {
  const bytes = await fs.readFile(file);
  return new File([bytes], path.basename(file), contentType ? { type: contentType } : {});
}
