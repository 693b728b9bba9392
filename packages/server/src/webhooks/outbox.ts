import type { Clock } from '../shared/clock.ts';
import type { Db } from '../db/database.ts';
import type { WebhookDeliveriesTable } from '../db/schema.ts';
import type { Ids } from '../shared/ids.ts';
import type { Jobs } from '../jobs/queue.ts';
import type { Topic, TopicData } from './topics.ts';

export interface OutboxDeps {
  clock: Clock;
  ids: Ids;
  jobs: Jobs;
}

/** api-details 7: a failed notification is retried for up to 48 hours. */
export const RETRY_WINDOW_MS = 48 * 60 * 60 * 1000;

export interface Event<T extends Topic> {
  websiteId: string;
  topic: T;
  data: TopicData[T];
  /** Only this app's subscriptions (extension.uninstall goes to the app that lost access). */
  clientId?: string;
}

/** The notification body (api-details 7), in the order of its documentation. */
export function notificationBody(n: {
  id: string;
  websiteId: string;
  subscriptionId: string;
  topic: string;
  createdOn: Date;
  data: object;
}): string {
  return JSON.stringify({
    id: n.id,
    websiteId: n.websiteId,
    subscriptionId: n.subscriptionId,
    topic: n.topic,
    createdOn: n.createdOn.toISOString(),
    data: n.data,
  });
}

/**
 * Records an event for every subscription of the website to its topic, in the caller's
 * transaction: the notifications exist exactly when the change commits, and a crash afterwards
 * loses none of them (their first attempts are queued in the same transaction). Returns how
 * many were queued; the caller wakes the delivery workers after its commit when any were.
 */
export function emit<T extends Topic>(trx: Db, deps: OutboxDeps, event: Event<T>): Promise<number> {
  return emitAll(trx, deps, event.websiteId, [event]);
}

/** What an event needs of a subscription to queue its notification. */
interface Subscription {
  id: string;
  client_id: string;
  endpoint_url: string;
  secret_version: number;
  topics: string[];
}

/** A transaction's subscriptions by website, looked up by its first event (subscriptionsOf). */
const looked = new WeakMap<Db, Map<string, Promise<Subscription[]>>>();

/**
 * The website's subscriptions, read once a transaction: an order queues `order.create`, its
 * buyer's `contact.*` and its products' `product.update`, and each would otherwise ask again.
 * Every event of the transaction goes to the subscriptions there were at its first; a
 * transaction that changes subscriptions emits nothing after (revocation.ts emits first).
 */
function subscriptionsOf(trx: Db, websiteId: string): Promise<Subscription[]> {
  const select = () =>
    trx
      .selectFrom('webhook_subscriptions')
      .select(['id', 'client_id', 'endpoint_url', 'secret_version', 'topics'])
      .where('website_id', '=', websiteId)
      .execute();
  if (!trx.isTransaction) return select();
  let byWebsite = looked.get(trx);
  if (!byWebsite) looked.set(trx, (byWebsite = new Map()));
  let subscriptions = byWebsite.get(websiteId);
  if (!subscriptions) byWebsite.set(websiteId, (subscriptions = select()));
  return subscriptions;
}

/**
 * Whether an event of the topic would be sent anywhere: a payload that costs a query to make
 * (the contact before and after a change) is made only then.
 */
export async function subscribed(trx: Db, websiteId: string, topic: Topic): Promise<boolean> {
  return (await subscriptionsOf(trx, websiteId)).some((s) => s.topics.includes(topic));
}

/** emit() of several events of one website. */
export async function emitAll(
  trx: Db,
  deps: OutboxDeps,
  websiteId: string,
  events: Event<Topic>[],
): Promise<number> {
  if (events.length === 0) return 0;
  const subscriptions = await subscriptionsOf(trx, websiteId);
  if (subscriptions.length === 0) return 0;

  const now = deps.clock.now(websiteId);
  const rows: WebhookDeliveriesTable[] = events.flatMap((event) =>
    subscriptions
      .filter((s) => s.topics.includes(event.topic) && (!event.clientId || s.client_id === event.clientId))
      .map((s) => {
        // The notification id is 24 hex, as the platform's (platform-surface 3); the delivery row
        // shares it. Rows queued before keep their UUIDs: the column is text and ids are only looked up.
        const id = deps.ids.objectId();
        return {
          id,
          website_id: websiteId,
          client_id: s.client_id,
          subscription_id: s.id,
          topic: event.topic,
          endpoint_url: s.endpoint_url,
          secret_version: s.secret_version,
          body: notificationBody({ ...event, id, subscriptionId: s.id, createdOn: now }),
          status: 'PENDING',
          attempts: 0,
          created_on: now,
          retry_until: new Date(now.getTime() + RETRY_WINDOW_MS),
          next_attempt_at: now,
          leased_until: null,
          completed_on: null,
          last_status_code: null,
          last_error: null,
        };
      }),
  );
  if (rows.length === 0) return 0;
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  await deps.jobs.enqueueDeliveries(
    trx,
    rows.map((r) => ({ deliveryId: r.id, attempt: 0 })),
  );
  return rows.length;
}

/**
 * Runs the work in a transaction, to which it reports the notifications it queued (what `emit`
 * returns); wakes the delivery workers after the commit when there were any.
 */
export async function inTransaction<T>(
  deps: { db: Db; jobs: Jobs },
  work: (trx: Db, queued: (count: number) => void) => Promise<T>,
): Promise<T> {
  let notified = 0;
  const result = await deps.db.transaction().execute((trx) => work(trx, (count) => (notified += count)));
  if (notified) deps.jobs.wakeDeliveryWorkers();
  return result;
}
