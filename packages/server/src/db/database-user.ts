import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The user the database's programs run as: as root, the system user "postgres"; else this one. */
export type RunAs = { uid: number; gid: number } | undefined;

const USER = 'postgres';

/** PostgreSQL refuses to run as root; as root the server runs as the system user "postgres". */
export async function databaseUser(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string) => Number((await run('id', [flag, USER])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', USER]);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

/** The first of `folders` the user cannot enter, asked as that user (as the database will be run). */
async function firstClosed(folders: string[], user: NonNullable<RunAs>): Promise<string | undefined> {
  const script = 'for d; do [ -x "$d" ] || { printf %s "$d"; exit 0; }; done';
  const { stdout } = await run('sh', ['-c', script, 'sh', ...folders], user);
  return stdout || undefined;
}

/**
 * The database's user must be able to enter DATA_DIR to reach DATA_DIR/postgres. A DATA_DIR of mode
 * 0700 (as mktemp -d and many volumes make it) is opened to that user alone: through the group
 * postgres when the folder's group has no rights anyway, else by search permission for others.
 * A folder above DATA_DIR is not ours to change: then start-up stops and says what to do.
 */
export async function letDatabaseUserIn(dataDir: string, user: RunAs): Promise<void> {
  if (!user) return;
  const target = path.resolve(dataDir);
  const folders: string[] = [];
  for (let folder = target; ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (folder === path.dirname(folder)) break;
  }
  const closed = await firstClosed(folders, user);
  if (!closed) return;
  if (closed !== target) {
    throw new Error(
      `DATA_DIR ${dataDir}: the database runs as the user ${USER}, which cannot enter ${closed}; ` +
        `use a DATA_DIR outside it (e.g. /var/lib/emporium) or allow it in (chmod o+x ${closed})`,
    );
  }
  const { mode, uid, gid } = await fs.stat(target);
  if ((mode & 0o070) === 0) {
    if (gid !== user.gid) await fs.chown(target, uid, user.gid);
    await fs.chmod(target, (mode & 0o7777) | 0o010);
  } else {
    await fs.chmod(target, (mode & 0o7777) | 0o001);
  }
  const now = ((await fs.stat(target)).mode & 0o7777).toString(8).padStart(4, '0');
  process.stderr.write(
    `emporium: DATA_DIR ${dataDir}: gave the database user ${USER} search permission (now mode ${now}${(mode & 0o070) === 0 ? `, group ${USER}` : ''})\n`,
  );
  if (await firstClosed([target], user)) {
    throw new Error(
      `DATA_DIR ${dataDir}: the user ${USER} still cannot enter it; allow it in or use another DATA_DIR`,
    );
  }
}
