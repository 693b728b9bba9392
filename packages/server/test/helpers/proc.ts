/** The state of processes a test starts but cannot await (the database server, its guard), read from /proc. */
import fs from 'node:fs';
import path from 'node:path';

/** The pid of the postmaster of the PostgreSQL server whose data folder is `pgdata`. */
export function postmasterPid(pgdata: string): number {
  return Number(fs.readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Whether a process runs (a zombie does not), by its /proc entry. */
export function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The ids of the processes whose command line names `folder`: the database, its guard. */
export function processesOf(folder: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(folder);
      } catch {
        return false; // ended while we looked
      }
    })
    .map(Number);
}

/** Asks until `done` holds, at most `limitMs`: the state of another process cannot be awaited. */
export async function until<T>(ask: () => T | Promise<T>, done: (value: T) => boolean, limitMs: number) {
  const end = Date.now() + limitMs;
  for (;;) {
    const value = await ask();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
