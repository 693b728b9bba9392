import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { queryPrepared } from './database.ts';
import { isDeadlock } from './deadlock.ts';

interface Waiting<C, R> {
  call: C;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/** Calls sent in one round trip at most: a batch holds the locks its calls take until its commit. */
const MAX_BATCH = 64;

/**
 * Calls of one database function that arrive together go as one statement, one transaction and
 * one commit: `send` runs them in order (a function call a row of `unnest(...) WITH ORDINALITY`)
 * and answers each one's result in that order. Calls waiting while another batch is in the
 * database go together in the next; with none in flight, a call is sent once the requests read
 * with it have joined it. Each call still runs every step of its function, under the locks it
 * takes, and sees what the calls before it in the batch did; nothing is answered before the
 * commit.
 *
 * Much of a short call's cost in the database is that of its transaction (the protocol's
 * messages, the snapshot, the commit and its WAL flush): shared by a batch, it is paid once
 * (bench/README.md, "OAuth benchmark").
 *
 * Two batches of two processes can lock the same rows in opposite orders; PostgreSQL then ends
 * one of them, whose calls are sent again, each alone. Any other error fails the whole batch, as
 * it would have failed each call.
 */
export class CallBatches<C, R> {
  private waiting: Waiting<C, R>[] = [];
  private inFlight = false;
  private scheduled = false;

  constructor(private readonly send: (calls: C[]) => Promise<R[]>) {}

  call(call: C): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ call, resolve, reject });
      // Sent after the requests read in this turn of the event loop, which join it.
      if (this.inFlight || this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.next();
      });
    });
  }

  private next(): void {
    if (this.inFlight || this.waiting.length === 0) return;
    this.inFlight = true;
    void this.run(this.waiting.splice(0, MAX_BATCH)).finally(() => {
      this.inFlight = false;
      this.next();
    });
  }

  private async run(batch: Waiting<C, R>[]): Promise<void> {
    try {
      const results = await this.send(batch.map((w) => w.call));
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      if (!isDeadlock(err) || batch.length === 1) {
        batch.forEach((w) => w.reject(err));
        return;
      }
      await Promise.all(
        batch.map((w) => this.send([w.call]).then(([result]) => w.resolve(result!), w.reject)),
      );
    }
  }
}

/** One queue of batches a database pool: a process's calls share their round trips. */
export function batchesPerPool<C, R>(
  send: (pool: pg.Pool, calls: C[]) => Promise<R[]>,
): (pool: pg.Pool) => CallBatches<C, R> {
  const queues = new WeakMap<pg.Pool, CallBatches<C, R>>();
  return (pool) => {
    let queue = queues.get(pool);
    if (!queue) queues.set(pool, (queue = new CallBatches((calls) => send(pool, calls))));
    return queue;
  };
}

/** The rows of a batch's statement, numbered from 1 in `n`, in the order of its calls. */
export function inCallOrder<T extends { n: string }>(rows: T[], count: number): (T | undefined)[] {
  const ordered: (T | undefined)[] = new Array(count);
  for (const row of rows) ordered[Number(row.n) - 1] = row;
  return ordered;
}

/** An argument of a batched function: its SQL type, and its value in a call. */
export type Argument<C> = readonly [type: string, value: (call: C) => unknown];

/**
 * Calls `fn`, a function answering one value, once a call, in order, in one statement: its
 * arguments go as one array each. Answers each call's value, in the order of the calls.
 */
export async function callInOrder<C, R>(
  pool: pg.Pool,
  fn: string,
  args: readonly Argument<C>[],
  calls: readonly C[],
): Promise<R[]> {
  const names = args.map((_, i) => `a${i}`);
  const arrays = args.map(([type], i) => `$${i + 1}::${type}[]`);
  const query = CompiledQuery.raw(
    `SELECT n, ${fn}(${names.join(', ')}) AS result
       FROM unnest(${arrays.join(', ')}) WITH ORDINALITY AS x(${names.join(', ')}, n)`,
    args.map(([, value]) => calls.map(value)),
  );
  const rows = await queryPrepared<{ n: string; result: R }>(pool, query as never);
  return inCallOrder(rows, calls.length).map((row) => row!.result);
}
