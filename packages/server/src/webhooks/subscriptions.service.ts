import type { Db } from '../db/database.ts';
import type { WebhookSubscriptionsTable } from '../db/schema.ts';
import { Conflict, Forbidden, NotFound, ValidationError } from '../shared/errors.ts';
import type { AccessTokenCredential } from '../http/credential.ts';
import { effectiveScopes } from '../shared/scopes.ts';
import { send, type DeliveryDeps } from './delivery.ts';
import { endpointProblem } from './notification-post.ts';
import { notificationBody } from './outbox.ts';
import { subscriptionSecret } from './signature.ts';
import { isTopic, TOPIC_SCOPES, TOPICS, type Topic, type TopicData } from './topics.ts';

/** api-details 7: at most 25 subscriptions; counted per app and website, so apps cannot crowd each other out. */
export const MAX_SUBSCRIPTIONS = 25;
const MAX_URL_LENGTH = 2048;

/** The fields the platform requires on a subscription (platform-surface 2.9); the secret is apart. */
export interface SubscriptionJson {
  id: string;
  websiteId: string;
  clientId: string;
  endpointUrl: string;
  topics: string[];
  createdOn: string;
  updatedOn: string;
}

/** The app and website a subscription belongs to: always the access token's own. */
type Owner = Pick<AccessTokenCredential, 'clientId' | 'websiteId' | 'scopes'>;

function json(row: WebhookSubscriptionsTable): SubscriptionJson {
  return {
    id: row.id,
    websiteId: row.website_id,
    clientId: row.client_id,
    endpointUrl: row.endpoint_url,
    topics: row.topics,
    createdOn: row.created_on.toISOString(),
    updatedOn: row.updated_on.toISOString(),
  };
}

function checkEndpoint(deps: DeliveryDeps, endpointUrl: string): string {
  if (endpointUrl.length > MAX_URL_LENGTH)
    throw new ValidationError(`endpointUrl: at most ${MAX_URL_LENGTH} characters`);
  const problem = endpointProblem(endpointUrl, deps.webhooks.allowPrivate);
  if (problem) throw new ValidationError(`endpointUrl: ${problem}`);
  return endpointUrl;
}

/** Known topics, each once, each allowed by the token's scopes (an order topic needs an orders scope). */
function checkTopics(owner: Owner, topics: string[]): Topic[] {
  if (topics.length === 0) throw new ValidationError('topics: at least one topic', 'MISSING_ARGUMENT');
  const scopes = effectiveScopes(owner.scopes);
  const checked = new Set<Topic>();
  for (const [i, topic] of topics.entries()) {
    if (!isTopic(topic))
      throw new ValidationError(`topics[${i}]: unknown topic "${topic}"; one of ${TOPICS.join(', ')}`);
    const scope = TOPIC_SCOPES[topic];
    if (scope && !scopes.has(scope))
      throw new Forbidden(`topics[${i}]: ${topic} needs the ${scope} scope`, 'MISSING_SCOPE');
    checked.add(topic);
  }
  return [...checked];
}

async function find(db: Db, owner: Owner, id: string): Promise<WebhookSubscriptionsTable> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where((eb) => eb.and(ownedBy(owner, id)))
    .executeTakeFirst();
  if (!row) throw new NotFound(`webhook subscription not found: ${id}`);
  return row;
}

/** A subscription of the token's app and website: another's answers as unknown (404), never 403. */
function ownedBy(owner: Owner, id: string) {
  return { id, website_id: owner.websiteId, client_id: owner.clientId };
}

function secretOf(deps: DeliveryDeps, row: WebhookSubscriptionsTable): string {
  return subscriptionSecret(deps.webhooks.key, row.id, row.secret_version);
}

export async function createSubscription(
  deps: DeliveryDeps,
  owner: Owner,
  input: { endpointUrl: string; topics: string[] },
): Promise<SubscriptionJson & { secret: string }> {
  const endpointUrl = checkEndpoint(deps, input.endpointUrl);
  const topics = checkTopics(owner, input.topics);
  const now = deps.clock.now(owner.websiteId);
  const row: WebhookSubscriptionsTable = {
    id: deps.ids.uuid(),
    website_id: owner.websiteId,
    client_id: owner.clientId,
    endpoint_url: endpointUrl,
    topics,
    secret_version: 1,
    created_on: now,
    updated_on: now,
  };
  await deps.db.transaction().execute(async (trx) => {
    // The website's row lock makes the count and the insert one step under concurrency; NO KEY,
    // so writes that only reference the website (a product's foreign key) do not wait for it.
    await trx
      .selectFrom('websites')
      .select('id')
      .where('id', '=', owner.websiteId)
      .forNoKeyUpdate()
      .execute();
    const { count } = await trx
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('website_id', '=', owner.websiteId)
      .where('client_id', '=', owner.clientId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_SUBSCRIPTIONS) {
      throw new Conflict(
        `at most ${MAX_SUBSCRIPTIONS} webhook subscriptions an app per website; delete one first`,
        'WEBHOOK_SUBSCRIPTION_LIMIT_REACHED',
      );
    }
    await trx.insertInto('webhook_subscriptions').values(row).execute();
  });
  return { ...json(row), secret: secretOf(deps, row) };
}

export async function listSubscriptions(db: Db, owner: Owner): Promise<SubscriptionJson[]> {
  const rows = await db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('website_id', '=', owner.websiteId)
    .where('client_id', '=', owner.clientId)
    .orderBy('created_on')
    .orderBy('id')
    .execute();
  return rows.map(json);
}

export async function getSubscription(db: Db, owner: Owner, id: string): Promise<SubscriptionJson> {
  return json(await find(db, owner, id));
}

/** Partial update of endpointUrl and topics; the secret stays (rotateSecret changes it). */
export async function updateSubscription(
  deps: DeliveryDeps,
  owner: Owner,
  id: string,
  input: { endpointUrl?: string; topics?: string[] },
): Promise<SubscriptionJson> {
  const set: Partial<WebhookSubscriptionsTable> = { updated_on: deps.clock.now(owner.websiteId) };
  if (input.endpointUrl !== undefined) set.endpoint_url = checkEndpoint(deps, input.endpointUrl);
  if (input.topics !== undefined) set.topics = checkTopics(owner, input.topics);
  const row = await deps.db
    .updateTable('webhook_subscriptions')
    .set(set)
    .where((eb) => eb.and(ownedBy(owner, id)))
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new NotFound(`webhook subscription not found: ${id}`);
  return json(row);
}

/** Deletes a subscription; its notifications still waiting are dropped (delivery.ts). */
export async function deleteSubscription(db: Db, owner: Owner, id: string): Promise<void> {
  const result = await db
    .deleteFrom('webhook_subscriptions')
    .where((eb) => eb.and(ownedBy(owner, id)))
    .executeTakeFirst();
  if (result.numDeletedRows === 0n) throw new NotFound(`webhook subscription not found: ${id}`);
}

/** A new secret; from now on every notification, retries included, is signed with it. */
export async function rotateSecret(
  deps: DeliveryDeps,
  owner: Owner,
  id: string,
): Promise<{ secret: string }> {
  const row = await deps.db
    .updateTable('webhook_subscriptions')
    .set((eb) => ({
      secret_version: eb('secret_version', '+', 1),
      updated_on: deps.clock.now(owner.websiteId),
    }))
    .where((eb) => eb.and(ownedBy(owner, id)))
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new NotFound(`webhook subscription not found: ${id}`);
  return { secret: secretOf(deps, row) };
}

/**
 * The topics a test notification may carry: those the platform documents for it
 * (extension.uninstall, order.create, order.update; not its contact and address topics,
 * platform-surface 2.9) and Emporium's own product topics.
 */
type TestTopic = Exclude<Topic, `contact.${string}` | `address.${string}`>;

/** Sample data for a test notification of each topic that has one. */
function sampleData(owner: Owner): { [T in TestTopic]: TopicData[T] } {
  const sample = '000000000000000000000000';
  return {
    'extension.uninstall': { clientId: owner.clientId },
    'order.create': { orderId: sample },
    'order.update': { orderId: sample, update: 'FULFILLED' },
    'product.create': { productId: sample },
    'product.update': { productId: sample },
    'product.delete': { productId: sample },
  };
}

/**
 * One signed notification of a subscribed topic, sent now: one attempt, no retry, not recorded
 * among the deliveries. Answers the receiver's status code, or null and why none came.
 */
export async function sendTestNotification(
  deps: DeliveryDeps,
  owner: Owner,
  id: string,
  topic: string,
): Promise<{ statusCode: number | null; error: string | null }> {
  const row = await find(deps.db, owner, id);
  if (!isTopic(topic) || !row.topics.includes(topic)) {
    throw new ValidationError(`topic: must be one of the subscription's topics: ${row.topics.join(', ')}`);
  }
  const samples = sampleData(owner);
  if (!Object.hasOwn(samples, topic)) {
    throw new ValidationError(
      `topic: ${topic} has no test notification; one of ${Object.keys(samples).join(', ')}`,
    );
  }
  const body = notificationBody({
    id: deps.ids.objectId(),
    websiteId: owner.websiteId,
    subscriptionId: row.id,
    topic,
    createdOn: deps.clock.now(owner.websiteId),
    data: samples[topic as TestTopic],
  });
  const target = { endpointUrl: row.endpoint_url, subscriptionId: row.id, secretVersion: row.secret_version };
  const { statusCode, error } = await send(deps.webhooks, target, body);
  return { statusCode, error };
}
