import { stampRows } from '../db/change-clock.ts';
import { findKey, KEY_KEPT_MS, tryLockKey } from '../db/idempotency-keys.ts';
import { Conflict, NotFound, RateLimited, ValidationError } from '../shared/errors.ts';
import { findWebsite } from '../sites/websites.repo.ts';
import { emit } from '../webhooks/outbox.ts';
import { importDigest, parseImport } from './order-import.ts';
import { parseShipment } from './order-input.ts';
import { LIMITS, type CreateOrderInput, type FulfillInput } from './orders.schemas.ts';
import { toOrder } from './order-document.ts';
import { checkOrderId } from './orders.read.ts';
import { emailBuyer } from './order-emails.ts';
import * as repo from './orders.repo.ts';
import { placeOrder, type OrderDeps, type OrderDraft, type OrderHooks, type Placed } from './place-order.ts';

const HOUR_MS = 3600_000;

async function websiteCurrency(deps: OrderDeps, websiteId: string): Promise<string> {
  const website = await findWebsite(deps.db, websiteId);
  if (!website) throw new NotFound(`website not found: ${websiteId}`);
  return website.currency;
}

/**
 * Places an order of Emporium's own (the CLI, the owner's pages, the storefront) in a
 * transaction of its own; returns the order as sent.
 */
export async function createOrder(deps: OrderDeps, websiteId: string, draft: OrderDraft): Promise<Placed> {
  const currency = await websiteCurrency(deps, websiteId);
  const placed = await deps.db
    .transaction()
    .execute((trx) => placeOrder(trx, deps, { id: websiteId, currency }, draft));
  placed.announce();
  return placed;
}

/**
 * `POST /1.0/commerce/orders`: imports an order from another channel, at most once per
 * Idempotency-Key, as inventory adjustments apply theirs (inventory.service.ts): a key still
 * running answers 409; one used in the last 48 hours answers with its order (same body) or 400
 * (another body); a refused import keeps nothing, the key included. Imports through API keys
 * are limited a website and hour, counted once the website's order number is held, so exactly.
 */
export async function importOrder(
  deps: OrderDeps & { orderImportsPerHour: number },
  request: { websiteId: string; caller: string; key: string },
  body: CreateOrderInput,
): Promise<Buffer> {
  const { websiteId, caller, key } = request;
  const currency = await websiteCurrency(deps, websiteId);
  const draft = parseImport(body, currency);
  const digest = importDigest(body);
  const keyRow = { website_id: websiteId, caller, key };
  let announce = () => {};
  const json = await deps.db.transaction().execute(async (trx) => {
    if (!(await tryLockKey(trx, 'order_import_keys', keyRow))) {
      throw new Conflict(
        'Idempotency-Key: an order with this key is still being created; retry once it has finished',
        'CONCURRENT_MODIFICATION',
      );
    }
    const now = deps.clock.now(websiteId);
    const earlier = await findKey(trx, 'order_import_keys', keyRow, new Date(now.getTime() - KEY_KEPT_MS));
    if (earlier) {
      if (!earlier.request_digest.equals(digest)) {
        throw new ValidationError(
          'Idempotency-Key: this key was used with another body in the last 48 hours; use a new key for another order',
        );
      }
      const [row] = await repo.selectOrders(trx, websiteId, [earlier.order_id]);
      return JSON.stringify({ ...toOrder(row!), idempotencyKey: key });
    }
    // Kept with the order; counted with the others under the order number, so exactly.
    const hooks: OrderHooks = {
      written: (orderId) =>
        repo.saveImportKey(trx, { ...keyRow, request_digest: digest, order_id: orderId, created_at: now }),
      numbered: async () => {
        if (!caller.startsWith('key:')) return;
        const since = new Date(now.getTime() - HOUR_MS);
        const limit = deps.orderImportsPerHour;
        if ((await repo.countKeyImports(trx, websiteId, since, limit + 1)) > limit) {
          const oldest = await repo.oldestKeyImport(trx, websiteId, since);
          const freeAt = (oldest?.getTime() ?? now.getTime()) + HOUR_MS;
          throw new RateLimited(
            `this website's API keys imported ${limit} orders in the last hour, the limit; retry later`,
            Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000)),
          );
        }
      },
    };
    const placed = await placeOrder(trx, deps, { id: websiteId, currency }, draft, hooks);
    announce = placed.announce;
    return JSON.stringify({ ...placed.json, idempotencyKey: key });
  });
  announce();
  return Buffer.from(json);
}

/**
 * `POST /1.0/commerce/orders/{id}/fulfillments` and the owner's fulfill form: adds the shipments
 * and marks the order FULFILLED, with an `order.update` of `FULFILLED`. A FULFILLED order takes
 * more shipments (and notifies again); with none, nothing changes. A CANCELED one is refused
 * (platform-surface Q15). Returns whether the order changed.
 */
export async function fulfillOrder(
  deps: OrderDeps,
  websiteId: string,
  orderId: string,
  body: FulfillInput,
): Promise<boolean> {
  checkOrderId(orderId);
  const shipments = (body.shipments ?? []).map((s, i) => parseShipment(s, `shipments[${i}]`));
  let notified = 0;
  let emailed = false;
  const changed = await deps.db.transaction().execute(async (trx) => {
    const order = await repo.lockOrder(trx, websiteId, orderId);
    if (order === 'busy') {
      throw new Conflict(
        'a request using the provided Order is already in progress; retry once it has finished',
        'CONCURRENT_MODIFICATION',
      );
    }
    if (!order) throw new NotFound(`order not found: ${orderId}`);
    if (order.fulfillment_status === 'CANCELED') {
      throw new ValidationError(`order ${orderId} is CANCELED and cannot be fulfilled`);
    }
    if (order.fulfillment_status === 'FULFILLED' && shipments.length === 0) return false;
    if (order.fulfillments.length + shipments.length > LIMITS.fulfillments) {
      throw new ValidationError(`shipments: an order has at most ${LIMITS.fulfillments} shipments`);
    }
    await repo.updateOrder(trx, orderId, {
      fulfillment_status: 'FULFILLED',
      fulfilled_on: order.fulfilled_on ?? deps.clock.now(websiteId),
      fulfillments: JSON.stringify([...order.fulfillments, ...shipments]),
    });
    notified = await emit(trx, deps, {
      websiteId,
      topic: 'order.update',
      data: { orderId, update: 'FULFILLED' },
    });
    // The buyer hears of the shipment only when asked for (platform-surface 2.1.3).
    if (body.shouldSendNotification === true) {
      emailed = await emailBuyer(trx, deps, order, 'shipping_notice', { shipments });
    }
    await stampRows(trx, deps.clock, websiteId, 'orders', [orderId]);
    return true;
  });
  if (notified) deps.jobs.wakeDeliveryWorkers();
  if (emailed) deps.jobs.wakeEmailWorkers();
  if (changed) deps.orders.lists.changed(websiteId);
  return changed;
}
