import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { WEBHOOK_JOB } from '../jobs/queue.ts';
import type { OutboxDeps } from './outbox.ts';

/** Finished deliveries stay on the owner's page this long, then go with their attempts. */
const KEEP_MS = 30 * 24 * 3600_000;
/** A waiting delivery this far past its attempt time, and not leased, has lost its job. */
const STALLED_MS = 15 * 60_000;

/**
 * The hourly care of the outbox. Deletes deliveries finished more than 30 days ago. Queues again
 * each waiting delivery whose job is gone: a job pg-boss gave up on after its own retries (the
 * database was down for longer than they last). A job that is merely late makes its attempt
 * once, whichever comes first (delivery.ts leases the attempt). Idempotent; every process may run it.
 */
export async function sweepDeliveries(
  deps: OutboxDeps & { db: Db },
): Promise<{ deleted: number; requeued: number }> {
  // The service's time: a sweep belongs to no website.
  const now = deps.clock.now();
  const deleted = await deps.db
    .deleteFrom('webhook_deliveries')
    .where('status', '!=', 'PENDING')
    .where('completed_on', '<', new Date(now.getTime() - KEEP_MS))
    .executeTakeFirst();
  const requeued = await deps.db.transaction().execute(async (trx) => {
    // next_attempt_at is in its website's time, ahead of the service's by the site's shift; the
    // lease is in the service's.
    const stalled = await trx
      .selectFrom('webhook_deliveries')
      .innerJoin('websites', 'websites.id', 'webhook_deliveries.website_id')
      .select(['webhook_deliveries.id', 'webhook_deliveries.attempts'])
      .where('webhook_deliveries.status', '=', 'PENDING')
      .where(
        sql<boolean>`webhook_deliveries.next_attempt_at < ${new Date(now.getTime() - STALLED_MS)}::timestamptz
          + websites.clock_shift_ms * interval '1 ms'`,
      )
      .where((eb) =>
        eb.or([
          eb('webhook_deliveries.leased_until', 'is', null),
          eb('webhook_deliveries.leased_until', '<', now),
        ]),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom(sql.table('pgboss.job').as('job'))
              .select(sql`1`.as('one'))
              .where(
                sql<boolean>`job.name = ${WEBHOOK_JOB} AND job.data->>'deliveryId' = webhook_deliveries.id AND job.state < 'completed'`,
              ),
          ),
        ),
      )
      .limit(1000)
      .execute();
    await deps.jobs.enqueueDeliveries(
      trx,
      stalled.map((d) => ({ deliveryId: d.id, attempt: d.attempts })),
    );
    return stalled.length;
  });
  if (requeued) deps.jobs.wakeDeliveryWorkers();
  return { deleted: Number(deleted.numDeletedRows), requeued };
}
