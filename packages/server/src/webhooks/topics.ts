/**
 * Webhook topics and the scope each needs (api-details 7). The product topics go beyond the
 * platform the API follows, which has no catalog events; their data is `{ productId }`.
 */
export const TOPIC_SCOPES = {
  'extension.uninstall': null,
  'order.create': 'website.orders.read',
  'order.update': 'website.orders.read',
  'product.create': 'website.products.read',
  'product.update': 'website.products.read',
  'product.delete': 'website.products.read',
} as const;

export type Topic = keyof typeof TOPIC_SCOPES;

export const TOPICS = Object.keys(TOPIC_SCOPES) as Topic[];

export function isTopic(value: string): value is Topic {
  return Object.hasOwn(TOPIC_SCOPES, value);
}

/** What changed in an `order.update` (platform-surface 3). */
export type OrderUpdate = 'FULFILLED' | 'REFUNDED' | 'CANCELED' | 'MARKED_PENDING' | 'EMAIL_UPDATED';

/** What an event's notification carries in `data`. */
export interface TopicData {
  'extension.uninstall': { clientId: string };
  'order.create': { orderId: string };
  'order.update': { orderId: string; update: OrderUpdate };
  'product.create': { productId: string };
  'product.update': { productId: string };
  'product.delete': { productId: string };
}
