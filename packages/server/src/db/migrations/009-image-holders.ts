import { sql, type Kysely } from 'kysely';

/**
 * Which worker holds a PROCESSING image, and which hand-out of its job: a status read then tells
 * an image whose worker died (its lock is no longer held, jobs/worker-lock.ts) from one being
 * worked on, and the workers queue it again at once rather than after the job's timeout. Images
 * PROCESSING before this migration have no holder and are left to the timeout.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('images')
    .addColumn('worker_id', 'integer')
    .addColumn('job_id', 'uuid')
    .addColumn('job_attempt', 'integer')
    .execute();
  // The few images being processed, looked over every few seconds by each worker process.
  await sql`CREATE INDEX images_processing_idx ON images (worker_id) WHERE status = 'PROCESSING'`.execute(db);
}
