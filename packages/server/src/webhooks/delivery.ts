import { randomInt } from 'node:crypto';
import type { Db } from '../db/database.ts';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/schema.ts';
import type { WebhookJobData } from '../jobs/queue.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { OutboxDeps } from './outbox.ts';
import { postNotification, type PostResult, type PostSettings } from './notification-post.ts';
import { signature, subscriptionSecret } from './signature.ts';

/** How notifications are sent; one object for the API, the workers and the owner pages. */
export interface WebhookSettings extends PostSettings {
  /** The server key subscription secrets are derived from (signature.ts). */
  key: Buffer;
  /** The wait before the attempt after `failures` failed ones. */
  retryDelayMs: (failures: number) => number;
}

export interface DeliveryDeps extends OutboxDeps {
  db: Db;
  webhooks: WebhookSettings;
  metrics: Pick<Metrics, 'webhookAttempted' | 'webhookDone'>;
}

/** api-details 7: a receiver has 10 seconds to answer. */
const TIMEOUT_MS = 10_000;
const FIRST_RETRY_MS = 30_000;
const LONGEST_WAIT_MS = 4 * 60 * 60 * 1000;

/**
 * Exponential backoff with jitter (api-details 7): about 30 s, 1 min, 2 min, ... up to 4 hours
 * between attempts, each wait drawn from its upper half so that receivers coming back from an
 * outage are not hit by every sender at once. Within the 48 hours that is about 20 attempts.
 */
export function backoff(failures: number): number {
  const ceiling = Math.min(FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20), LONGEST_WAIT_MS);
  return ceiling / 2 + randomInt(Math.floor(ceiling / 2) + 1);
}

/** The settings of a server or worker: the stored key, the operator's choice on private addresses. */
export function webhookSettings(key: Buffer, allowPrivate: boolean): WebhookSettings {
  return { key, allowPrivate, timeoutMs: TIMEOUT_MS, retryDelayMs: backoff };
}

/** Signs and posts a notification body to a subscription's endpoint. */
export function send(
  settings: WebhookSettings,
  target: { endpointUrl: string; subscriptionId: string; secretVersion: number },
  body: string,
): Promise<PostResult> {
  const secret = subscriptionSecret(settings.key, target.subscriptionId, target.secretVersion);
  return postNotification(
    target.endpointUrl,
    body,
    { 'squarespace-signature': signature(secret, body) },
    settings,
  );
}

/**
 * One attempt at a delivery: the job of `webhook.deliver`. The delivery is leased first, so two
 * jobs for one attempt (a job handed out again after its worker died) never post at once, and a
 * job whose attempt was already made does nothing. The attempt's record, the delivery's new
 * state and the next attempt's job are written together: a crash before it leaves the
 * lease to expire and pg-boss to hand the job out again (at least once, same `id`); a crash
 * after it lost nothing.
 */
export async function attemptDelivery(deps: DeliveryDeps, job: WebhookJobData): Promise<void> {
  const leaseMs = deps.webhooks.timeoutMs + 20_000;
  // The lease is the service's, as every job's: workers compare it whatever site they serve.
  const now = deps.clock.now();
  // One statement takes the lease and reads the subscription as it is now.
  const delivery = await deps.db
    .updateTable('webhook_deliveries')
    .set({ leased_until: new Date(now.getTime() + leaseMs) })
    .where('id', '=', job.deliveryId)
    .where('status', '=', 'PENDING')
    .where('attempts', '=', job.attempt)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', now)]))
    .returningAll()
    .returning((eb) => [
      eb
        .selectFrom('webhook_subscriptions as s')
        .select('s.endpoint_url')
        .whereRef('s.id', '=', 'webhook_deliveries.subscription_id')
        .as('current_url'),
      eb
        .selectFrom('webhook_subscriptions as s')
        .select('s.secret_version')
        .whereRef('s.id', '=', 'webhook_deliveries.subscription_id')
        .as('current_version'),
    ])
    .executeTakeFirst();
  if (!delivery) return;

  // A deleted subscription wants nothing more, except the uninstall notice that deleted it.
  if (delivery.current_url === null && delivery.topic !== 'extension.uninstall') {
    await finish(deps.db, delivery, {
      status: 'CANCELLED',
      completed_on: deps.clock.now(delivery.website_id),
    });
    deps.metrics.webhookDone('CANCELLED');
    return;
  }
  const result = await send(
    deps.webhooks,
    {
      endpointUrl: delivery.current_url ?? delivery.endpoint_url,
      subscriptionId: delivery.subscription_id,
      secretVersion: delivery.current_version ?? delivery.secret_version,
    },
    delivery.body,
  );
  await record(deps, delivery, result);
}

async function record(
  deps: DeliveryDeps,
  delivery: WebhookDeliveriesTable,
  result: PostResult,
): Promise<void> {
  const at = deps.clock.now(delivery.website_id);
  const failures = delivery.attempts + 1;
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const wait = ok ? 0 : deps.webhooks.retryDelayMs(failures);
  const next = new Date(at.getTime() + wait);
  const retry = !ok && next <= delivery.retry_until;
  const attempt: WebhookAttemptsTable = {
    delivery_id: delivery.id,
    attempt: failures,
    attempted_at: at,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    error: result.error,
  };
  const outcome = {
    status: ok ? 'DELIVERED' : retry ? 'PENDING' : 'FAILED',
    completed_on: retry ? null : at,
    next_attempt_at: retry ? next : null,
    last_status_code: result.statusCode,
    last_error: result.error,
  } as const;
  if (!retry) {
    await finish(deps.db, delivery, outcome, attempt);
    // Counted once written: an attempt whose record failed is made again and counted then.
    deps.metrics.webhookAttempted(ok);
    deps.metrics.webhookDone(
      ok ? 'DELIVERED' : 'FAILED',
      (at.getTime() - delivery.created_on.getTime()) / 1000,
    );
    return;
  }
  await deps.db.transaction().execute(async (trx) => {
    await finish(trx, delivery, outcome, attempt);
    await deps.jobs.enqueueDeliveries(trx, [
      { deliveryId: delivery.id, attempt: failures, startAfterSeconds: wait / 1000 },
    ]);
  });
  deps.metrics.webhookAttempted(false);
  if (wait < 1000) deps.jobs.wakeDeliveryWorkers();
}

/**
 * Gives the lease back with the delivery's new state; with an attempt, the attempt count moves
 * on and the attempt's record is written by the same statement.
 */
async function finish(
  db: Db,
  delivery: WebhookDeliveriesTable,
  set: Partial<
    Pick<
      WebhookDeliveriesTable,
      'status' | 'completed_on' | 'next_attempt_at' | 'last_status_code' | 'last_error'
    >
  >,
  attempt?: WebhookAttemptsTable,
): Promise<void> {
  const values = { ...set, attempts: delivery.attempts + (attempt ? 1 : 0), leased_until: null };
  if (!attempt) {
    await db.updateTable('webhook_deliveries').set(values).where('id', '=', delivery.id).execute();
    return;
  }
  await db
    .with('attempt', (w) => w.insertInto('webhook_attempts').values(attempt))
    .updateTable('webhook_deliveries')
    .set(values)
    .where('id', '=', delivery.id)
    .execute();
}
