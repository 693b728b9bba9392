import { segment, type Caller } from '../client.js';
import { PagedList } from '../pagination.js';
import type { CallOptions } from '../request.js';
import type {
  RotatedSecret,
  TestNotificationResult,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionList,
  WebhookSubscriptionUpdate,
  WebhookSubscriptionWithSecret,
} from '../types.js';

const PATH = '/1.0/webhook_subscriptions';
const one = (id: string) => `${PATH}/${segment(id)}`;

/** `/1.0/webhook_subscriptions` (OAuth access tokens only: an API key gets 403 OAUTH_TOKEN_REQUIRED). */
export class WebhookSubscriptions {
  constructor(private readonly client: Caller) {}

  /** Every subscription of this app on the website (one page; no secrets). */
  list(options: CallOptions = {}): PagedList<WebhookSubscriptionList, WebhookSubscription> {
    return new PagedList(
      () => this.client.call<WebhookSubscriptionList>({ method: 'GET', path: PATH, ...options }),
      (page) => page.webhookSubscriptions,
    );
  }

  get(id: string, options: CallOptions = {}): Promise<WebhookSubscription> {
    return this.client.call({ method: 'GET', path: one(id), ...options });
  }

  /** The answer carries the signing `secret`: keep it, it is shown only now and on rotation. */
  create(body: WebhookSubscriptionCreate, options: CallOptions = {}): Promise<WebhookSubscriptionWithSecret> {
    return this.client.call({ method: 'POST', path: PATH, json: body, ...options });
  }

  /** Partial: a field left out is unchanged; the secret stays. */
  update(
    id: string,
    body: WebhookSubscriptionUpdate,
    options: CallOptions = {},
  ): Promise<WebhookSubscription> {
    return this.client.call({ method: 'POST', path: one(id), json: body, ...options });
  }

  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.client.call({ method: 'DELETE', path: one(id), ...options });
  }

  /** A new signing secret; every notification from now on, retries included, is signed with it. */
  rotateSecret(id: string, options: CallOptions = {}): Promise<RotatedSecret> {
    return this.client.call({ method: 'POST', path: `${one(id)}/actions/rotateSecret`, ...options });
  }

  /** One signed sample notification of `topic`; `statusCode` is the receiver's answer. */
  sendTestNotification(
    id: string,
    topic: string | { topic: string },
    options: CallOptions = {},
  ): Promise<TestNotificationResult> {
    return this.client.call({
      method: 'POST',
      path: `${one(id)}/actions/sendTestNotification`,
      json: typeof topic === 'string' ? { topic } : topic,
      ...options,
    });
  }
}
