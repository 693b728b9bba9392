import PgBoss from 'pg-boss';
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.ts';

/** Job names and their payloads. */
export const IMAGE_JOB = 'image.process';
/** Where an image job goes when its last retry failed, or its worker died on the last one. */
export const IMAGE_FAILED_JOB = 'image.failed';
export interface ImageJobData {
  imageId: string;
}

/** Retries with backoff: 5 s, 10 s, 20 s. */
const IMAGE_RETRIES = { retryLimit: 3, retryDelay: 5, retryBackoff: true };
/** How often expired jobs are looked for (pg-boss's default is two minutes). */
const MAINTENANCE_SECONDS = 5;

/** The job queue: pg-boss in the service's own database (its schema `pgboss`). */
export class Jobs {
  private readonly boss: PgBoss;
  private readonly imageWorkers: string[] = [];

  /**
   * `jobTimeoutSeconds`: a job whose worker died (a crash, a SIGKILL) is handed out again once
   * it has been held this long, so a lost worker delays an image by about this much.
   */
  constructor(
    databaseUrl: string,
    private readonly jobTimeoutSeconds = 120,
  ) {
    this.boss = new PgBoss({
      connectionString: databaseUrl,
      max: 4,
      application_name: 'emporium jobs',
      maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
    });
    this.boss.on('error', () => {}); // reconnects by itself; a job in flight is retried
  }

  async start(): Promise<void> {
    await this.boss.start();
    await this.boss.createQueue(IMAGE_FAILED_JOB, { name: IMAGE_FAILED_JOB, ...IMAGE_RETRIES });
    const queue = {
      name: IMAGE_JOB,
      ...IMAGE_RETRIES,
      expireInSeconds: this.jobTimeoutSeconds,
      deadLetter: IMAGE_FAILED_JOB,
    };
    // createQueue keeps an existing queue's settings; update applies the configured ones.
    await this.boss.createQueue(IMAGE_JOB, queue);
    await this.boss.updateQueue(IMAGE_JOB, queue);
  }

  /** Queues the job in the caller's transaction: it exists exactly when the change commits. */
  async enqueueImage(trx: Db, data: ImageJobData): Promise<void> {
    const db = {
      executeSql: async (text: string, values: unknown[]) =>
        trx.executeQuery(CompiledQuery.raw(text, values)),
    };
    await this.boss.send(IMAGE_JOB, data, { db });
  }

  /**
   * Runs `concurrency` image jobs at a time: `process` throws to have the job retried, and
   * `failed` hears of each job that will not be retried again.
   */
  async workImages(
    concurrency: number,
    handlers: {
      process: (data: ImageJobData) => Promise<void>;
      failed: (data: ImageJobData) => Promise<void>;
    },
  ): Promise<void> {
    const options = { batchSize: 1, pollingIntervalSeconds: 0.5 };
    for (let i = 0; i < concurrency; i++) {
      const id: string = await this.boss.work<ImageJobData>(IMAGE_JOB, options, async ([job]) => {
        if (!job) return;
        await handlers.process(job.data);
        // pg-boss waits out the rest of its polling interval after every job; with jobs queued
        // behind this one that wait would idle the worker for most of each interval.
        this.boss.notifyWorker(id);
      });
      this.imageWorkers.push(id);
    }
    await this.boss.work<ImageJobData>(IMAGE_FAILED_JOB, options, async ([job]) => {
      if (job) await handlers.failed(job.data);
    });
  }

  /**
   * Tells this process's idle image workers to look for a job now rather than at their next
   * poll; called once a queued job has committed. Workers in other processes poll.
   */
  wakeImageWorkers(): void {
    for (const id of this.imageWorkers) this.boss.notifyWorker(id);
  }

  /** Stops taking jobs and waits for those in hand. */
  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: 30_000 });
  }
}
