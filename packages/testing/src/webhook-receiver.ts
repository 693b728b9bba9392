import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifyWebhook } from '@emporium/sdk';

/*
 * An app's webhook endpoint in a test: an HTTP server on 127.0.0.1 that checks each notification's
 * signature against the secrets of the subscriptions it made, answers 200 to a genuine one and
 * 401 to any other, and lets a test await the next notification of a topic.
 */

/** A notification as Emporium sends it (api-details 7). */
export interface Notification {
  id: string;
  websiteId: string;
  subscriptionId: string;
  topic: string;
  createdOn: string;
  data: Record<string, unknown>;
}

export interface Subscription {
  id: string;
  endpointUrl: string;
  topics: string[];
  secret: string;
}

interface Waiter {
  topic: string | undefined;
  resolve(notification: Notification): void;
}

/** How long next() waits by default: deliveries take milliseconds, retries seconds. */
const DEFAULT_WAIT_MS = 10_000;

export class WebhookReceiver {
  /** Every genuine notification, in the order they came. */
  readonly received: Notification[] = [];
  /** Bodies whose signature matched no secret: the receiver answered them 401. */
  readonly rejected: string[] = [];
  private readonly secrets: string[] = [];
  private readonly waiters: Waiter[] = [];
  /** How many of `received` next() has handed out, by topic ('' for any). */
  private readonly seen = new Map<string, number>();

  private constructor(
    private readonly server: http.Server,
    /** The address to subscribe: `http://127.0.0.1:<port>/webhooks`. */
    readonly url: string,
    private readonly emporiumUrl: string,
  ) {}

  static async listen(emporiumUrl: string): Promise<WebhookReceiver> {
    // No request is handled before `receiver` exists: it is made in the same turn as listen() ends.
    const server = http.createServer((req, res) => void receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/webhooks`, emporiumUrl);
    return receiver;
  }

  /**
   * Subscribes this receiver to `topics` with the app's access token, through the webhook
   * subscriptions API, and keeps the secret the answer carries to check what comes.
   */
  async subscribe(accessToken: string, topics: readonly string[]): Promise<Subscription> {
    const res = await fetch(new URL('/1.0/webhook_subscriptions', this.emporiumUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        'user-agent': 'emporium-testing',
      },
      body: JSON.stringify({ endpointUrl: this.url, topics }),
    });
    const body = (await res.json()) as Subscription & { message?: string };
    if (res.status !== 201)
      throw new Error(`subscribing failed (${res.status}): ${body.message ?? JSON.stringify(body)}`);
    this.secrets.push(body.secret);
    return body;
  }

  /**
   * The next notification of `topic` (of any topic when left out) that next() has not handed out
   * yet: one already received, or the first to come within `timeoutMs`.
   */
  next(topic?: string, { timeoutMs = DEFAULT_WAIT_MS }: { timeoutMs?: number } = {}): Promise<Notification> {
    const key = topic ?? '';
    const matching = this.received.filter((n) => topic === undefined || n.topic === topic);
    const index = this.seen.get(key) ?? 0;
    if (index < matching.length) {
      this.seen.set(key, index + 1);
      return Promise.resolve(matching[index]!);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        topic,
        resolve: (notification) => {
          clearTimeout(timer);
          this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
          resolve(notification);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(
          new Error(
            `no ${topic ?? 'webhook'} notification within ${timeoutMs} ms (${this.received.length} received)`,
          ),
        );
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const signature = req.headers[SIGNATURE_HEADER];
    const genuine =
      this.secrets.length > 0 &&
      (await verifyWebhook(body, Array.isArray(signature) ? signature[0] : signature, this.secrets));
    if (!genuine) {
      this.rejected.push(body.toString('utf8'));
      res.writeHead(401).end();
      return;
    }
    const notification = JSON.parse(body.toString('utf8')) as Notification;
    res.writeHead(200).end();
    this.received.push(notification);
    // The first waiter of its topic and the first waiter of any topic each get it; a second
    // waiter of the same kind waits for the next one.
    const handed = new Set<string>();
    for (const waiter of [...this.waiters]) {
      const key = waiter.topic ?? '';
      if ((waiter.topic !== undefined && waiter.topic !== notification.topic) || handed.has(key)) continue;
      handed.add(key);
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(notification);
    }
  }
}
