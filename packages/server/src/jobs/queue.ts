import PgBoss from 'pg-boss';
import pg from 'pg';
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.ts';
import { EMAIL_JOB, EmailQueue, type EmailJobData } from './email-queue.ts';
import { WorkerLock } from './worker-lock.ts';

// The payload of the e-mail jobs, which their sender (emails/sending.ts) takes from the queue's module.
export type { EmailJobData } from './email-queue.ts';

/** Job names and their payloads. */
export const IMAGE_JOB = 'image.process';
/** Where an image job goes when its last retry failed, or its worker died on the last one. */
export const IMAGE_FAILED_JOB = 'image.failed';
export interface ImageJobData {
  imageId: string;
}
/** Who works an image job: the worker (alive while its lock is held) and the job's hand-out. */
export interface ImageJobHolder {
  workerId: number;
  jobId: string;
  /** pg-boss's retryCount when the job was handed out: each hand-out of a job has its own. */
  attempt: number;
}

/** One attempt at a webhook delivery (webhooks/delivery.ts); a failed attempt queues the next. */
export const WEBHOOK_JOB = 'webhook.deliver';
export interface WebhookJobData {
  deliveryId: string;
  /** The attempt this job makes; a job whose attempt was already made does nothing. */
  attempt: number;
}

/** Retries with backoff: 5 s, 10 s, 20 s. */
const IMAGE_RETRIES = { retryLimit: 3, retryDelay: 5, retryBackoff: true };
/**
 * A delivery job retries only when the database failed it (a failed post queues its own next
 * attempt); an attempt takes at most its 10 s timeout, so a job held for a minute lost its worker.
 */
const WEBHOOK_QUEUE = { retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 };
/** As a delivery job: retried by pg-boss only when the database failed it; an SMTP attempt takes at most 30 s. */
const EMAIL_QUEUE = { retryLimit: 10, retryDelay: 5, retryBackoff: true, expireInSeconds: 120 };
/** How often expired jobs are looked for (pg-boss's default is two minutes). */
const MAINTENANCE_SECONDS = 5;

/**
 * The advisory lock (pg_advisory_lock(int, int), apart from the worker locks' first key) that one
 * starting process at a time holds while it creates and updates the queues.
 */
export const QUEUE_SETUP_LOCK = 0x71756575;
/** PostgreSQL's answer to a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** The job queue: pg-boss in the service's own database (its schema `pgboss`). */
export class Jobs {
  private readonly boss: PgBoss;
  private readonly imageWorkers: string[] = [];
  private readonly webhookWorkers: string[] = [];
  private readonly emails: EmailQueue;
  private workerLock: WorkerLock | undefined;

  /**
   * `jobTimeoutSeconds`: an image job held this long is handed out again, whatever its worker
   * seems to be doing: the backstop for a worker that hangs. One whose worker died is handed out
   * again within seconds (requeueLostImages).
   */
  constructor(
    private readonly databaseUrl: string,
    private readonly jobTimeoutSeconds = 120,
    /** How long start() waits for another process's set-up of the queues, which takes seconds. */
    private readonly setupWaitMs = 60_000,
  ) {
    this.boss = new PgBoss({
      connectionString: databaseUrl,
      max: 4,
      application_name: 'emporium jobs',
      maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
    });
    this.boss.on('error', () => {}); // reconnects by itself; a job in flight is retried
    this.emails = new EmailQueue(this.boss);
  }

  async start(): Promise<void> {
    process.on('unhandledRejection', outlastUnawaitedCompletion);
    await this.boss.start();
    // Processes starting at once on a new database deadlock in pg-boss's create_queue (each
    // attaches a queue's table while another's insert of the same queue waits), and one of them
    // would stop; so the queues are set up by one process at a time.
    await oneAtATime(this.databaseUrl, this.setupWaitMs, () => this.setUpQueues());
  }

  // Every queue is set up here, the e-mail queue too: the harness's cached cluster, which holds
  // the queues, is named by a digest of this file (harness-cluster.ts).
  private async setUpQueues(): Promise<void> {
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
    await this.boss.createQueue(WEBHOOK_JOB, { name: WEBHOOK_JOB, ...WEBHOOK_QUEUE });
    await this.boss.updateQueue(WEBHOOK_JOB, { name: WEBHOOK_JOB, ...WEBHOOK_QUEUE });
    await this.boss.createQueue(EMAIL_JOB, { name: EMAIL_JOB, ...EMAIL_QUEUE });
    await this.boss.updateQueue(EMAIL_JOB, { name: EMAIL_JOB, ...EMAIL_QUEUE });
  }

  /** Queues the job in the caller's transaction: it exists exactly when the change commits. */
  async enqueueImage(trx: Db, data: ImageJobData): Promise<void> {
    await this.boss.send(IMAGE_JOB, data, { db: executor(trx) });
  }

  /**
   * Queues delivery attempts in the caller's transaction, each after its delay. The delay is
   * counted by the database's clock, which is the one pg-boss starts jobs by.
   */
  async enqueueDeliveries(
    trx: Db,
    attempts: (WebhookJobData & { startAfterSeconds?: number })[],
  ): Promise<void> {
    if (attempts.length === 0) return;
    await this.boss.insert(
      attempts.map(({ startAfterSeconds = 0, ...data }) => ({
        name: WEBHOOK_JOB,
        data,
        startAfter: `${startAfterSeconds} seconds`,
      })),
      { db: executor(trx) },
    );
  }

  /**
   * Runs delivery attempts: `workers` pollers, each taking up to `batchSize` jobs and posting
   * them side by side, so a receiver that hangs holds up only its own batch. `deliver` throws
   * only when the database failed; the batch is then retried, and the attempts already recorded
   * are skipped.
   */
  async workDeliveries(
    workers: number,
    batchSize: number,
    deliver: (data: WebhookJobData) => Promise<void>,
  ): Promise<void> {
    for (let i = 0; i < workers; i++) {
      const id: string = await this.boss.work<WebhookJobData>(
        WEBHOOK_JOB,
        { batchSize, pollingIntervalSeconds: 0.5 },
        async (jobs) => {
          const results = await Promise.allSettled(jobs.map((job) => deliver(job.data)));
          const failed = results.find((r) => r.status === 'rejected');
          if (failed) throw failed.reason;
          this.boss.notifyWorker(id); // more may be waiting: see workImages
        },
      );
      this.webhookWorkers.push(id);
    }
  }

  /** Wakes this process's idle delivery workers once queued attempts have committed. */
  wakeDeliveryWorkers(): void {
    for (const id of this.webhookWorkers) this.boss.notifyWorker(id);
  }

  /** Queues an e-mail's SMTP attempt in the caller's transaction, after its delay (database clock). */
  async enqueueEmail(trx: Db, data: EmailJobData & { startAfterSeconds?: number }): Promise<void> {
    await this.emails.enqueue(executor(trx), data);
  }

  /** Runs e-mail attempts: `workers` pollers, one e-mail each at a time (EmailQueue.work). */
  async workEmails(workers: number, send: (data: EmailJobData) => Promise<void>): Promise<void> {
    await this.emails.work(workers, send);
  }

  /** Wakes this process's idle e-mail workers once queued e-mails have committed. */
  wakeEmailWorkers(): void {
    this.emails.wake();
  }

  /**
   * Runs `concurrency` image jobs at a time: `process` throws to have the job retried, and
   * `failed` hears of each job that will not be retried again. The process holds a worker lock
   * meanwhile, which tells the others it is alive.
   */
  async workImages(
    concurrency: number,
    handlers: {
      process: (data: ImageJobData, holder: ImageJobHolder) => Promise<void>;
      failed: (data: ImageJobData) => Promise<void>;
    },
  ): Promise<void> {
    const options = { batchSize: 1, pollingIntervalSeconds: 0.5 };
    const withRetryCount = { ...options, includeMetadata: true as const };
    const lock = concurrency > 0 ? (this.workerLock ??= await WorkerLock.take(this.databaseUrl)) : undefined;
    for (let i = 0; lock && i < concurrency; i++) {
      const id: string = await this.boss.work<ImageJobData>(IMAGE_JOB, withRetryCount, async ([job]) => {
        if (!job) return;
        const holder = { workerId: lock.heldId(), jobId: job.id, attempt: job.retryCount };
        await handlers.process(job.data, holder);
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

  /**
   * Fails the job a dead worker held, for its next retry (or the dead letter after its last, so
   * that an image that kills every worker still ends), in the caller's transaction. Only if that
   * hand-out is still the job's current one: the job may since have timed out and been handed to
   * a live worker, whose hand-out has another retryCount.
   */
  async failLostImageJob(trx: Db, holder: Pick<ImageJobHolder, 'jobId' | 'attempt'>): Promise<void> {
    const db = executor(trx);
    const job = await this.boss.getJobById<ImageJobData>(IMAGE_JOB, holder.jobId, {
      db,
      includeArchive: false,
    });
    if (job?.state === 'active' && job.retryCount === holder.attempt) {
      await this.boss.fail(IMAGE_JOB, holder.jobId, { message: 'its worker died' }, { db });
    }
  }

  /** Stops taking jobs and waits for those in hand; then this process no longer counts as alive. */
  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, wait: true, timeout: 30_000 });
    await this.workerLock?.release();
    process.off('unhandledRejection', outlastUnawaitedCompletion);
  }
}

/** pg-boss's view of a transaction: its statements then run inside it. */
function executor(trx: Db) {
  return {
    executeSql: async (text: string, values: unknown[]) => trx.executeQuery(CompiledQuery.raw(text, values)),
  };
}

/**
 * pg-boss 10 marks a job done or failed after its handler without awaiting the call (`work()` in
 * its manager.js), so with the database away at that moment the call's rejection is unhandled,
 * which ends a Node process. The job then stays active and is handed out again once it expires,
 * as after a crash, so the process goes on. Any other unhandled rejection still ends it: thrown
 * again from here, it is an uncaught exception.
 */
function outlastUnawaitedCompletion(reason: unknown): void {
  const stack = reason instanceof Error ? (reason.stack ?? '') : '';
  if (/at async Manager\.(complete|fail) \(.*pg-boss/.test(stack)) {
    process.stderr.write(
      `${JSON.stringify({ msg: 'a job could not be marked done; it is handed out again', err: String(reason) })}\n`,
    );
    return;
  }
  throw reason;
}

/**
 * Runs `fn` holding the queue set-up lock, on a connection of its own whose end releases it. A
 * process that holds it for longer than `waitMs` is hung: this one stops and says so, rather
 * than wait with it.
 */
async function oneAtATime(databaseUrl: string, waitMs: number, fn: () => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'emporium queue setup' });
  client.on('error', () => {}); // a lost connection fails the query below, which start() reports
  await client.connect();
  try {
    await client.query(`SET lock_timeout = ${Math.ceil(waitMs)}`);
    await client.query('SELECT pg_advisory_lock($1, 0)', [QUEUE_SETUP_LOCK]).catch((error: unknown) => {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      throw new Error(
        `the job queues: another process has been setting them up for ${waitMs / 1000} s; ` +
          `look for a hung emporium process (pg_stat_activity, application_name 'emporium queue setup')`,
      );
    });
    await fn();
  } finally {
    await client.end().catch(() => {});
  }
}
