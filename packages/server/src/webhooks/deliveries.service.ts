import type { Db } from '../db/database.ts';
import type { DeliveryStatus } from '../db/schema.ts';
import { NotFound } from '../errors.ts';
import { RETRY_WINDOW_MS, type OutboxDeps } from './outbox.ts';

export interface DeliveryView {
  id: string;
  topic: string;
  status: DeliveryStatus;
  attempts: number;
  createdOn: Date;
  lastStatusCode: number | null;
  lastError: string | null;
}

export interface SubscriptionView {
  id: string;
  appName: string;
  endpointUrl: string;
  topics: string[];
  deliveries: DeliveryView[];
}

/** A website's subscriptions, by app, each with its most recent deliveries: what the owner's page shows. */
export async function siteSubscriptions(db: Db, websiteId: string, recent = 10): Promise<SubscriptionView[]> {
  const subscriptions = await db
    .selectFrom('webhook_subscriptions')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'webhook_subscriptions.client_id')
    .select([
      'webhook_subscriptions.id',
      'oauth_clients.name as appName',
      'webhook_subscriptions.endpoint_url as endpointUrl',
      'webhook_subscriptions.topics',
    ])
    .where('webhook_subscriptions.website_id', '=', websiteId)
    .orderBy('oauth_clients.name')
    .orderBy('webhook_subscriptions.created_on')
    .execute();
  return Promise.all(
    subscriptions.map(async (subscription) => ({
      ...subscription,
      deliveries: await db
        .selectFrom('webhook_deliveries')
        .select([
          'id',
          'topic',
          'status',
          'attempts',
          'created_on as createdOn',
          'last_status_code as lastStatusCode',
          'last_error as lastError',
        ])
        .where('subscription_id', '=', subscription.id)
        .orderBy('created_on', 'desc')
        .limit(recent)
        .execute(),
    })),
  );
}

/**
 * The owner asks for a notification to be sent again: it is attempted now with the same `id`
 * and bytes, and retried for another 48 hours if that fails. A receiver that already has it
 * dedupes on the id.
 */
export async function resendDelivery(
  deps: OutboxDeps & { db: Db },
  websiteId: string,
  deliveryId: string,
): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const delivery = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: 'PENDING',
        retry_until: new Date(now.getTime() + RETRY_WINDOW_MS),
        next_attempt_at: now,
        completed_on: null,
      })
      .where('id', '=', deliveryId)
      .where('website_id', '=', websiteId)
      .where('status', '!=', 'CANCELLED')
      .returning('attempts')
      .executeTakeFirst();
    if (!delivery) throw new NotFound('There is no such notification to send again.');
    await deps.jobs.enqueueDeliveries(trx, [{ deliveryId, attempt: delivery.attempts }]);
  });
  deps.jobs.wakeDeliveryWorkers();
}
