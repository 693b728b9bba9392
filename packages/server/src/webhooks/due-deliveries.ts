import type { Db } from '../db/database.ts';
import type { Jobs } from '../jobs/queue.ts';

/**
 * A website's clock moved ahead (testing/site-clock.ts): its waiting notifications whose next
 * attempt is now due by the site's time get a job at once, rather than waiting for the service's
 * time to catch up with their queued one. The job queued before stays, and finds its attempt
 * made when it comes (delivery.ts leases each attempt by its number). Returns how many were queued.
 */
export async function queueDueDeliveries(
  trx: Db,
  jobs: Jobs,
  websiteId: string,
  siteNow: Date,
): Promise<number> {
  const due = await trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'attempts'])
    .where('website_id', '=', websiteId)
    .where('status', '=', 'PENDING')
    .where('next_attempt_at', '<=', siteNow)
    .execute();
  await jobs.enqueueDeliveries(
    trx,
    due.map((delivery) => ({ deliveryId: delivery.id, attempt: delivery.attempts })),
  );
  return due.length;
}
