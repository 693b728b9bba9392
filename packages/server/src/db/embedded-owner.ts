import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunAs } from './database-user.ts';

/** A process: its pid and its start time, so a pid reused by another process is not taken for it. */
interface Proc {
  pid: number;
  start: string;
}

/** Whether a process is running: /proc/<pid>/stat exists, is no zombie, and started when recorded. */
export function running(pid: number, start?: string): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // The fields after "pid (comm) ": the state first, the start time twentieth.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] !== 'Z' && (start === undefined || fields[19] === start);
}

function self(): Proc {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return { pid: process.pid, start: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]! };
}

/**
 * Stops the database once its owner has died, unless another process has taken it over by then.
 * It polls /proc rather than `kill -0`, which fails with EPERM for a root owner when the guard
 * runs as the database's user.
 */
const GUARD = `
while s=$(cat /proc/$1/stat 2>/dev/null); do
  set -- "$1" "$2" "$3" "$4" "$5" \${s##*) }
  [ "$6" = Z ] || [ "\${25}" != "$2" ] && break
  sleep 1
done
[ "$(cat "$3" 2>/dev/null)" = "$1 $2" ] && exec "$4" stop -m fast -D "$5"
`;

/**
 * The owner of the embedded database: the one emporium process that stops it, named with its pid
 * and start time in DATA_DIR/postgres-owner. The process that starts the database owns it, and so
 * does a process that finds it running without a live owner (its owner was killed); the others
 * (the CLI beside a server) only attach. While it owns the database, a guard process (sh, in a
 * process group of its own, as the database's user) stops the database if the owner dies without
 * doing it.
 */
export class Ownership {
  private readonly file: string;
  private readonly me = self();
  private guard: number | undefined;
  private isOwner = false;

  constructor(
    dataDir: string,
    private readonly pgdata: string,
    private readonly pgCtl: string,
    private readonly runAs: RunAs,
  ) {
    this.file = path.join(dataDir, 'postgres-owner');
  }

  get owned(): boolean {
    return this.isOwner;
  }

  /** Makes this process the owner unless a live process is; whether this process is the owner. */
  async claim(): Promise<boolean> {
    if (this.isOwner) return true;
    const owner = await this.owner();
    const mine = owner?.pid === this.me.pid && owner.start === this.me.start;
    if (owner && !mine && running(owner.pid, owner.start)) return false;
    const temp = `${this.file}.${randomBytes(6).toString('hex')}`;
    await fs.writeFile(temp, `${this.me.pid} ${this.me.start}`, { mode: 0o644 });
    try {
      if (owner) {
        await fs.rename(temp, this.file); // a dead owner's record
      } else {
        // Atomic: of two processes that find no owner at once, one wins; the other attaches.
        const won = await fs.link(temp, this.file).then(
          () => true,
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'EEXIST') return false;
            throw error;
          },
        );
        if (!won) return false;
      }
    } finally {
      await fs.rm(temp, { force: true });
    }
    this.isOwner = true;
    this.guard = this.startGuard();
    return true;
  }

  /** Gives the database up, once it is stopped: the record goes, and the guard with it. */
  async release(): Promise<void> {
    if (!this.owned) return;
    const owner = await this.owner();
    if (owner?.pid === this.me.pid && owner.start === this.me.start) await fs.rm(this.file, { force: true });
    if (this.guard) {
      try {
        process.kill(-this.guard, 'SIGKILL'); // its group: the shell and its sleep
      } catch {
        // already gone
      }
    }
    this.guard = undefined;
    this.isOwner = false;
  }

  /** The recorded owner; one that cannot be read (a torn record) is no live process. */
  private async owner(): Promise<Proc | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
    const [pid, start] = text.trim().split(' ');
    return { pid: Number(pid) || 0, start: start ?? '' };
  }

  private startGuard(): number | undefined {
    const child = spawn(
      'sh',
      [
        '-c',
        GUARD,
        'emporium-database-guard',
        String(this.me.pid),
        this.me.start,
        this.file,
        this.pgCtl,
        this.pgdata,
      ],
      { ...this.runAs, detached: true, stdio: 'ignore', cwd: '/' },
    );
    child.on('error', () => {}); // no sh: the owner still stops the database on shutdown
    child.unref();
    return child.pid;
  }
}
