import type http from 'node:http';
import { SIGNATURE_HEADER, verifyWebhook } from '@emporium/sdk';

/** Notifications are small JSON objects; anything bigger is not one. */
const MAX_BODY = 64 * 1024;
/** Ids of notifications already handled, newest last; enough to cover Emporium's redeliveries. */
const MAX_SEEN = 10_000;

export interface WebhookHandlers {
  /** The subscription secret the app holds for a website, if it knows the website. */
  secretOf(websiteId: string): string | undefined;
  uninstalled(websiteId: string): Promise<void>;
  /** order.create: an order was placed on the website; `orderId` is what the notification names. */
  orderCreated(websiteId: string, orderId: string): Promise<void>;
}

interface Notification {
  id: string;
  websiteId: string;
  topic: string;
  /** data.orderId of the order topics. */
  orderId?: string;
}

/**
 * POST /webhooks: Emporium's signed notifications. The signature is checked on the raw bytes
 * with the secret of the website the body names (so the body is parsed first, but nothing in
 * it is acted on before it is verified). Delivery is at least once, so ids already handled are
 * answered 200 and skipped; forgetting a site twice would be harmless anyway, so remembering
 * them in memory only is enough. Acting on `order.create` reads the order through the API: a
 * failure there answers 500, and Emporium's retry tries again.
 */
export class WebhookReceiver {
  private readonly seen = new Set<string>();

  constructor(private readonly handlers: WebhookHandlers) {}

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const raw = await readBody(req, MAX_BODY);
    if (!raw) return answer(res, 413, 'body too large');
    const notification = parse(raw);
    if (!notification) return answer(res, 400, 'not a notification');
    const secret = this.handlers.secretOf(notification.websiteId);
    // A site the app does not hold (forgotten already, and this a redelivery): there is
    // nothing to act on, and answering 2xx stops Emporium's retries.
    if (!secret) return answer(res, 200, 'unknown site: ignored');
    const signature = req.headers[SIGNATURE_HEADER];
    if (typeof signature !== 'string' || !(await verifyWebhook(raw, signature, secret))) {
      return answer(res, 401, 'bad signature');
    }
    if (this.seen.has(notification.id)) return answer(res, 200, 'already handled');
    // Remembered before acting, so a redelivery arriving meanwhile is not acted on twice;
    // forgotten again if acting failed, so Emporium's retry is.
    this.remember(notification.id);
    try {
      if (notification.topic === 'extension.uninstall') {
        await this.handlers.uninstalled(notification.websiteId);
      } else if (notification.topic === 'order.create' && notification.orderId) {
        await this.handlers.orderCreated(notification.websiteId, notification.orderId);
      }
    } catch (err) {
      this.seen.delete(notification.id);
      throw err;
    }
    answer(res, 200, 'ok');
  }

  private remember(id: string) {
    this.seen.add(id);
    // A Set iterates in insertion order: drop the oldest.
    if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.values().next().value!);
  }
}

/** The body, or undefined past `limit` bytes (the rest is not read). */
async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parse(raw: Buffer): Notification | undefined {
  try {
    const body = JSON.parse(raw.toString('utf8')) as {
      id?: unknown;
      websiteId?: unknown;
      topic?: unknown;
      data?: { orderId?: unknown } | null;
    };
    const { id, websiteId, topic } = body;
    const orderId = body.data?.orderId;
    if (typeof id === 'string' && typeof websiteId === 'string' && typeof topic === 'string') {
      return { id, websiteId, topic, ...(typeof orderId === 'string' && { orderId }) };
    }
  } catch {
    // not JSON: falls through to undefined
  }
  return undefined;
}

function answer(res: http.ServerResponse, status: number, message: string) {
  // Connection: close on a refusal, so a sender still writing an oversized body is cut off.
  res.writeHead(status, { 'content-type': 'text/plain', ...(status >= 400 && { connection: 'close' }) });
  res.end(message);
}
