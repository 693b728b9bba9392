import { randomInt } from 'node:crypto';
import { sql, type Expression, type RawBuilder } from 'kysely';
import pg from 'pg';

/**
 * The first key of every worker lock (pg_advisory_lock(int, int)): a key space of its own, apart
 * from the one-key locks of inventory adjustments.
 */
const WORKER_LOCKS = 0x696d6777;

const HEARTBEAT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * Whether the worker `workerId` is gone: no session holds its lock. PostgreSQL ends the session of
 * a process that dies (even by SIGKILL) as soon as its connection closes, and the lock with it.
 *
 * Asked by trying a shared lock on the id, which only an exclusive holder refuses, and which is
 * released when the statement's transaction ends (a worker drawing that id meanwhile draws
 * another). That is one lookup in the lock table. Reading pg_locks instead copies the whole table,
 * every database's, under all of its partition locks: measured at 1.5 to 2 ms a read with 2,000
 * locks held on the server, where this stays as cheap as a read of a finished image.
 */
export function workerGone(workerId: Expression<number | null>): RawBuilder<boolean> {
  return sql<boolean>`pg_try_advisory_xact_lock_shared(${WORKER_LOCKS}, ${workerId})`;
}

/**
 * A process that works jobs proves it is alive by holding the session-level advisory lock of a
 * random worker id on a connection of its own, for as long as it runs. A lost connection is made
 * again and the same id taken back, so that what the worker holds is seen as held again; while
 * its old session lingers on the server, the id is still held, and so still alive.
 */
export class WorkerLock {
  private client: pg.Client | undefined;
  private workerId = newId();
  private held = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly url: string) {}

  /** Takes a lock; resolves once it is held. */
  static async take(url: string): Promise<WorkerLock> {
    const lock = new WorkerLock(url);
    let retryMs = RETRY_MIN_MS;
    for (;;) {
      const outcome = await lock.attempt();
      if (outcome === 'held') return lock;
      if (outcome === 'taken') lock.workerId = newId();
      else {
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    }
  }

  /**
   * The id to record on what this worker takes; throws while the lock is not held, since others
   * would then take the work for lost.
   */
  heldId(): number {
    if (!this.held) throw new Error('the worker lock is not held (its connection was lost)');
    return this.workerId;
  }

  async release(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.drop();
    await client?.end().catch(() => {});
  }

  /** One connection, and the lock of the current id on it: 'taken' when another session has it. */
  private async attempt(): Promise<'held' | 'taken' | 'failed'> {
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      query_timeout: HEARTBEAT_TIMEOUT_MS,
      application_name: 'emporium worker lock',
    });
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_lock($1, $2) AS locked',
        [WORKER_LOCKS, this.workerId],
      );
      if (this.client === client && rows[0]?.locked) {
        this.held = true;
        this.schedule(() => this.heartbeat(client), HEARTBEAT_MS);
        return 'held';
      }
      if (this.client === client) this.drop();
      await client.end().catch(() => {});
      return 'taken';
    } catch {
      if (this.client === client) this.drop();
      await client.end().catch(() => {});
      return 'failed';
    }
  }

  /** A connection that silently died is found by a query that does not answer. */
  private async heartbeat(client: pg.Client): Promise<void> {
    try {
      await client.query('SELECT 1');
      if (this.client === client) this.schedule(() => this.heartbeat(client), HEARTBEAT_MS);
    } catch {
      this.lost(client);
    }
  }

  /** The held lock's connection ended: take the same id back, as often as it takes. */
  private lost(client: pg.Client): void {
    if (this.client !== client || !this.held) return; // an old connection's late events
    this.drop();
    void client.end().catch(() => {});
    let retryMs = RETRY_MIN_MS;
    const again = async () => {
      if (this.stopped || (await this.attempt()) === 'held' || this.stopped) return;
      this.schedule(again, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    };
    this.schedule(again, 0);
  }

  private drop(): void {
    this.client = undefined;
    this.held = false;
    clearTimeout(this.timer);
  }

  private schedule(task: () => Promise<void>, ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void task(), ms);
    this.timer.unref();
  }
}

function newId(): number {
  return randomInt(1, 2 ** 31);
}
