import { sql } from 'kysely';
import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import { IMAGE_FAILED_JOB, IMAGE_JOB, WEBHOOK_JOB } from './queue.ts';

/** What waits in one queue. */
export interface QueueStat {
  queue: string;
  /** Jobs whose time has come and that no worker has taken yet. */
  due: number;
  /** Jobs waiting for a later start: retries after their backoff, webhook attempts after their delay. */
  delayed: number;
  /** How long the longest-waiting due job has been due; 0 with none. */
  oldestDueSeconds: number;
}

const QUEUES = [IMAGE_JOB, IMAGE_FAILED_JOB, WEBHOOK_JOB];

/**
 * Counts stop here, so that a scrape costs a bounded index walk however far a backlog has grown:
 * past it the number no longer matters, only that it is huge.
 */
export const COUNT_CAP = 100_000;

/** A scrape reads the queues at most this often; Prometheus scrapes every 15 s or so, several instances at once. */
const MAX_AGE_MS = 5_000;

/**
 * pg-boss's tables (schema `pgboss`, one partition a queue): each count and the oldest due time are
 * read through its fetch index `(name, start_after) WHERE state < 'active'`, ages by the database's
 * clock, which is the one pg-boss starts jobs by.
 */
async function readQueueStats(db: Db): Promise<QueueStat[]> {
  const { rows } = await sql<QueueStat>`
    SELECT q.name AS queue,
      (SELECT count(*) FROM (SELECT 1 FROM pgboss.job j
        WHERE j.name = q.name AND j.state < 'active' AND j.start_after <= now() LIMIT ${COUNT_CAP}) d)::int AS due,
      (SELECT count(*) FROM (SELECT 1 FROM pgboss.job j
        WHERE j.name = q.name AND j.state < 'active' AND j.start_after > now() LIMIT ${COUNT_CAP}) d)::int AS delayed,
      COALESCE(EXTRACT(EPOCH FROM now() - (SELECT min(j.start_after) FROM pgboss.job j
        WHERE j.name = q.name AND j.state < 'active' AND j.start_after <= now())), 0)::float8 AS "oldestDueSeconds"
    FROM unnest(${QUEUES}::text[]) AS q(name)`.execute(db);
  return rows;
}

/** The queue statistics, read again once they are older than a few seconds; concurrent scrapes share one read. */
export function queueStats(db: Db, clock: Clock): () => Promise<QueueStat[]> {
  let read: Promise<QueueStat[]> | undefined;
  let readAt = 0;
  return () => {
    const now = clock.now().getTime();
    if (!read || now - readAt >= MAX_AGE_MS) {
      const current = readQueueStats(db);
      read = current;
      readAt = now;
      // A failed read is not kept: the next scrape tries again.
      current.catch(() => {
        if (read === current) read = undefined;
      });
    }
    return read;
  };
}
