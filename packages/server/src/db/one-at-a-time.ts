import type pg from 'pg';

/**
 * First keys of the two-key advisory locks (pg_advisory_lock(int, int)) of work that one process
 * of many at a time is enough for; apart from the worker locks' and the queue set-up's keys.
 */
export const SWEEP_LOCKS = 0x73776570;

/**
 * Runs `fn` holding the session-level advisory lock (SWEEP_LOCKS, `key`) on a connection of the
 * pool, kept for it until `fn` ends; while another session holds the lock, skips `fn` and answers
 * undefined. A process that dies mid-way loses its connection and the lock with it.
 */
export async function oneAtATime<T>(
  pool: pg.Pool,
  key: number,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  const client = await pool.connect();
  let released = false;
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1, $2) AS locked',
      [SWEEP_LOCKS, key],
    );
    if (!rows[0]?.locked) return undefined;
    try {
      return await fn();
    } finally {
      try {
        await client.query('SELECT pg_advisory_unlock($1, $2)', [SWEEP_LOCKS, key]);
      } catch (error) {
        // The session may still hold the lock: it must not go back to the pool with it.
        client.release(error as Error);
        released = true;
      }
    }
  } finally {
    if (!released) client.release();
  }
}
