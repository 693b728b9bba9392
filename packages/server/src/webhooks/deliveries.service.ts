import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { DeliveryStatus } from '../db/schema.ts';
import { NotFound } from '../shared/errors.ts';
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

/** A delivery as json_agg renders its row: times as text. */
interface DeliveryRow {
  id: string;
  topic: string;
  status: DeliveryStatus;
  attempts: number;
  created_on: string;
  last_status_code: number | null;
  last_error: string | null;
}

/**
 * A website's subscriptions, by app, each with its most recent deliveries: what the owner's page
 * shows. One query: each subscription's deliveries come as a JSON array from a subquery on its
 * (subscription_id, created_on) index, as products bring their variants (products.repo.ts).
 */
export async function siteSubscriptions(db: Db, websiteId: string, recent = 10): Promise<SubscriptionView[]> {
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'webhook_subscriptions.client_id')
    .select([
      'webhook_subscriptions.id',
      'oauth_clients.name as appName',
      'webhook_subscriptions.endpoint_url as endpointUrl',
      'webhook_subscriptions.topics',
    ])
    .select(
      sql<DeliveryRow[]>`(
        SELECT coalesce(json_agg(d ORDER BY d.created_on DESC), '[]') FROM (
          SELECT id, topic, status, attempts, created_on, last_status_code, last_error
          FROM webhook_deliveries WHERE subscription_id = webhook_subscriptions.id
          ORDER BY created_on DESC LIMIT ${recent}) d)`.as('deliveries'),
    )
    .where('webhook_subscriptions.website_id', '=', websiteId)
    .orderBy('oauth_clients.name')
    .orderBy('webhook_subscriptions.created_on')
    .execute();
  return rows.map((row) => ({
    ...row,
    deliveries: row.deliveries.map((d) => ({
      id: d.id,
      topic: d.topic,
      status: d.status,
      attempts: d.attempts,
      createdOn: new Date(d.created_on),
      lastStatusCode: d.last_status_code,
      lastError: d.last_error,
    })),
  }));
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
  const now = deps.clock.now(websiteId);
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
