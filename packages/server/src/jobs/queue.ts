import PgBoss from 'pg-boss';
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.ts';

/** Job names and their payloads. */
export const IMAGE_JOB = 'image.process';
export interface ImageJobData {
  imageId: string;
}

/**
 * Retries with backoff (5 s, 10 s, 20 s); a job whose worker died (a crash, a SIGKILL) is
 * handed out again once it expires, so a lost worker delays an image by at most this long.
 */
const IMAGE_QUEUE: Omit<PgBoss.Queue, 'name'> = {
  retryLimit: 3,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: 60,
};

/** The job queue: pg-boss in the service's own database (its schema `pgboss`). */
export class Jobs {
  private readonly boss: PgBoss;

  constructor(databaseUrl: string) {
    this.boss = new PgBoss({ connectionString: databaseUrl, max: 4, application_name: 'emporium jobs' });
    this.boss.on('error', () => {}); // reconnects by itself; a job in flight is retried
  }

  async start(): Promise<void> {
    await this.boss.start();
    await this.boss.createQueue(IMAGE_JOB, { name: IMAGE_JOB, ...IMAGE_QUEUE });
  }

  /** Queues the job in the caller's transaction: it exists exactly when the change commits. */
  async enqueueImage(trx: Db, data: ImageJobData): Promise<void> {
    const db = {
      executeSql: async (text: string, values: unknown[]) =>
        trx.executeQuery(CompiledQuery.raw(text, values)),
    };
    await this.boss.send(IMAGE_JOB, data, { db });
  }

  /** Runs `concurrency` image jobs at a time; `handle` throws to have the job retried. */
  async workImages(
    concurrency: number,
    handle: (data: ImageJobData, attempt: { retryCount: number; retryLimit: number }) => Promise<void>,
  ): Promise<void> {
    for (let i = 0; i < concurrency; i++) {
      await this.boss.work<ImageJobData>(
        IMAGE_JOB,
        { batchSize: 1, pollingIntervalSeconds: 0.5, includeMetadata: true },
        async ([job]) => {
          if (job) await handle(job.data, { retryCount: job.retryCount, retryLimit: job.retryLimit });
        },
      );
    }
  }

  /** Stops taking jobs and waits for those in hand. */
  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: 30_000 });
  }
}
