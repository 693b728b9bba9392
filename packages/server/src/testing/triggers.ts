import { NotFound, ValidationError } from '../shared/errors.ts';
import { findWebsite } from '../sites/websites.repo.ts';
import { isTopic, TOPICS, type Topic } from '../webhooks/topics.ts';
import { APP_TRIGGERS } from './trigger-apps.ts';
import { CUSTOMER_TRIGGERS } from './trigger-customers.ts';
import type { Changed, OptionName, TopicTrigger, TriggerDeps, TriggerOptions } from './trigger-kinds.ts';
import { ORDER_TRIGGERS } from './trigger-orders.ts';
import { PRODUCT_TRIGGERS } from './trigger-products.ts';
import { queuedNotifications } from './triggers.repo.ts';

export type { TriggerDeps, TriggerOptions, OptionName } from './trigger-kinds.ts';

/**
 * Triggers make a webhook event happen for real, as `stripe trigger` does: the change an owner,
 * a shopper or an app would make, through the same services, so its notification is the real
 * one (queued in the change's transaction, signed, retried, in the delivery log) and an app's
 * follow-up calls find what it names.
 */

/** One trigger a topic the outbox sends: a new topic without one fails the type check here. */
export const TRIGGERS: Record<Topic, TopicTrigger> = {
  'extension.uninstall': APP_TRIGGERS['extension.uninstall'],
  'order.create': ORDER_TRIGGERS['order.create'],
  'order.update': ORDER_TRIGGERS['order.update'],
  'contact.create': CUSTOMER_TRIGGERS['contact.create'],
  'contact.update': CUSTOMER_TRIGGERS['contact.update'],
  'contact.delete': CUSTOMER_TRIGGERS['contact.delete'],
  'address.create': CUSTOMER_TRIGGERS['address.create'],
  'address.update': CUSTOMER_TRIGGERS['address.update'],
  'address.delete': CUSTOMER_TRIGGERS['address.delete'],
  'product.create': PRODUCT_TRIGGERS['product.create'],
  'product.update': PRODUCT_TRIGGERS['product.update'],
  'product.delete': PRODUCT_TRIGGERS['product.delete'],
};

export interface Triggered {
  topic: Topic;
  websiteId: string;
  /** The ids (and values) the change made or changed. */
  changed: Changed;
  notifications: {
    /** One a subscription of the website to the topic: what its receivers will get. */
    queued: number;
    /** Said when none was queued, which is no error: the change was made all the same. */
    note?: string;
  };
}

/** The error for a topic no trigger makes, naming those that are. */
export function unknownTopic(topic: string): ValidationError {
  return new ValidationError(`unknown topic "${topic}"; the topics are: ${TOPICS.join(', ')}`);
}

/**
 * Makes the change that sends `topic` on the website. Bad input (an unknown topic, an option the
 * topic does not take, a record that is not there) is refused before anything changes.
 */
export async function trigger(
  deps: TriggerDeps,
  topic: string,
  options: TriggerOptions & { websiteId: string },
): Promise<Triggered> {
  if (!isTopic(topic)) throw unknownTopic(topic);
  const { websiteId, ...rest } = options;
  const runner = TRIGGERS[topic];
  const stray = (Object.keys(rest) as OptionName[]).find(
    (name) => rest[name] !== undefined && !runner.options.includes(name),
  );
  if (stray) {
    const takes = runner.options.length ? `takes ${runner.options.join(', ')}` : 'takes no option';
    throw new ValidationError(`${stray}: ${topic} ${takes}`);
  }
  if (!(await findWebsite(deps.db, websiteId))) throw new NotFound(`website not found: ${websiteId}`);
  // The change's notifications are created between these two readings of the clock.
  const from = deps.clock.now(websiteId);
  const { changed, data } = await runner.run(deps, websiteId, rest);
  const to = deps.clock.now(websiteId);
  const queued = await queuedNotifications(deps.db, { websiteId, topic, data, from, to });
  return {
    topic,
    websiteId,
    changed,
    notifications: queued
      ? { queued }
      : {
          queued,
          note: `no subscription of website ${websiteId} listens to ${topic}: the change was made, no notification was sent`,
        },
  };
}
