import type PgBoss from 'pg-boss';

/** One attempt at sending a store's e-mail over SMTP (emails/sending.ts); a failed one queues the next. */
export const EMAIL_JOB = 'email.send';
export interface EmailJobData {
  emailId: string;
  /** The attempt this job makes; a job whose attempt was already made does nothing. */
  attempt: number;
}

/** The e-mail jobs of the queue (queue.ts, whose Jobs the callers use): queued, worked and woken. */
export class EmailQueue {
  private readonly workers: string[] = [];

  constructor(private readonly boss: PgBoss) {}

  /** Queues an e-mail's SMTP attempt in `db`, the caller's transaction, after its delay (database clock). */
  async enqueue(db: PgBoss.Db, data: EmailJobData & { startAfterSeconds?: number }): Promise<void> {
    const { startAfterSeconds = 0, ...job } = data;
    await this.boss.insert([{ name: EMAIL_JOB, data: job, startAfter: `${startAfterSeconds} seconds` }], {
      db,
    });
  }

  /**
   * Runs e-mail attempts: `workers` pollers, one e-mail each at a time. `send` throws only when
   * the database failed (a failed SMTP attempt queues its own next one); the job is then retried.
   */
  async work(workers: number, send: (data: EmailJobData) => Promise<void>): Promise<void> {
    for (let i = 0; i < workers; i++) {
      const id: string = await this.boss.work<EmailJobData>(
        EMAIL_JOB,
        { batchSize: 1, pollingIntervalSeconds: 0.5 },
        async ([job]) => {
          if (!job) return;
          await send(job.data);
          this.boss.notifyWorker(id); // more may be waiting: see Jobs.workImages
        },
      );
      this.workers.push(id);
    }
  }

  /** Wakes this process's idle e-mail workers once queued e-mails have committed. */
  wake(): void {
    for (const id of this.workers) this.boss.notifyWorker(id);
  }
}
