import { cancelOrder } from '../orders/cancel-order.ts';
import { createOrder, fulfillOrder } from '../orders/orders.service.ts';
import { LIMITS } from '../orders/orders.schemas.ts';
import { paidWebOrder } from '../orders/web-order.ts';
import { parseEmail } from '../shared/email.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { OBJECT_ID } from '../shared/ids.ts';
import { findWebsite } from '../sites/websites.repo.ts';
import { madeUpEmail, madeUpPerson, orderAddress } from './made-up-people.ts';
import type { Topic } from '../webhooks/topics.ts';
import type { TopicTrigger, TriggerDeps } from './trigger-kinds.ts';
import * as repo from './triggers.repo.ts';

/**
 * Orders as a shopper and the owner make them: a paid storefront order that takes stock, as the
 * checkout places one (orders/web-order.ts), and the owner's fulfil or cancel.
 */

const ACTIONS = ['FULFILLED', 'CANCELED'] as const;

function quantityOf(value: number | undefined): number {
  const quantity = value ?? 1;
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > LIMITS.quantity) {
    throw new ValidationError(`quantity: a whole number from 1 to ${LIMITS.quantity}`);
  }
  return quantity;
}

/** The variant sold: the one of `sku`, or the newest product's first in stock. */
async function soldVariant(deps: TriggerDeps, websiteId: string, sku: string | undefined, quantity: number) {
  const variant = sku
    ? await repo.variantBySku(deps.db, websiteId, sku)
    : await repo.firstStockedVariant(deps.db, websiteId);
  if (!variant && sku)
    throw new NotFound(`sku: no physical product of website ${websiteId} has the SKU "${sku}"`);
  if (!variant) {
    throw new ValidationError(
      `website ${websiteId} has no product in stock: an order takes its items from stock, so add stock (the inventory API, or trigger product.create) first`,
    );
  }
  if (!variant.stock_unlimited && variant.stock_quantity < quantity) {
    throw new ValidationError(
      `sku: "${variant.sku}" has ${variant.stock_quantity} in stock, fewer than the ${quantity} asked`,
    );
  }
  return variant;
}

const orderCreate: TopicTrigger = {
  options: ['sku', 'quantity', 'email'],
  async run(deps, websiteId, options) {
    const quantity = quantityOf(options.quantity);
    const email = options.email === undefined ? undefined : parseEmail(options.email, 'email');
    const variant = await soldVariant(deps, websiteId, options.sku, quantity);
    const website = await findWebsite(deps.db, websiteId);
    if (!website) throw new NotFound(`website not found: ${websiteId}`);
    const person = madeUpPerson(deps.ids);
    const draft = paidWebOrder({
      currency: website.currency,
      placedOn: deps.clock.now(websiteId),
      customerEmail: email ?? madeUpEmail(person, deps.ids),
      address: orderAddress(person),
      lines: [
        {
          lineItemType: 'PHYSICAL_PRODUCT',
          variantId: variant.id,
          title: null,
          quantity,
          unitPricePaidMinor: variant.price_minor,
          customizations: null,
        },
      ],
      cardBrand: 'VISA',
      chargeId: deps.ids.objectId(),
    });
    const { order } = await createOrder(deps, websiteId, draft);
    return {
      changed: {
        orderId: order.id,
        orderNumber: order.orderNumber,
        sku: variant.sku,
        quantity,
        customerEmail: draft.customerEmail!,
      },
      data: { orderId: order.id },
    };
  },
};

/** The order named, which must be PENDING, or the newest PENDING one. */
async function pendingOrder(
  deps: TriggerDeps,
  websiteId: string,
  orderId: string | undefined,
): Promise<string> {
  if (orderId === undefined) {
    const newest = await repo.newestPendingOrder(deps.db, websiteId);
    if (!newest) {
      throw new ValidationError(
        `website ${websiteId} has no PENDING order to fulfil or cancel: trigger order.create first`,
      );
    }
    return newest;
  }
  const id = orderId.toLowerCase();
  const status = OBJECT_ID.test(id) ? await repo.orderStatus(deps.db, websiteId, id) : undefined;
  if (!status) throw new NotFound(`order not found: ${orderId}`);
  if (status !== 'PENDING') {
    throw new ValidationError(`order ${id} is ${status}: only a PENDING order can be fulfilled or canceled`);
  }
  return id;
}

/** A shipment as a carrier would number it, shipped now. */
function shipment(deps: TriggerDeps, websiteId: string) {
  const trackingNumber = `9400${BigInt(`0x${deps.ids.objectId()}`).toString().slice(0, 18)}`;
  return {
    shipDate: deps.clock.now(websiteId).toISOString(),
    carrierName: 'USPS',
    service: 'Ground Advantage',
    trackingNumber,
    trackingUrl: `https://tools.usps.com/go/TrackConfirmAction?tLabels=${trackingNumber}`,
  };
}

const orderUpdate: TopicTrigger = {
  options: ['orderId', 'action'],
  async run(deps, websiteId, options) {
    const action = options.action ?? 'FULFILLED';
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw new ValidationError(`action: one of ${ACTIONS.join(', ')}, not "${action}"`);
    }
    const orderId = await pendingOrder(deps, websiteId, options.orderId);
    if (action === 'FULFILLED') {
      // As the owner's fulfil form does by default: the buyer is e-mailed a shipping notice.
      await fulfillOrder(deps, websiteId, orderId, {
        shipments: [shipment(deps, websiteId)],
        shouldSendNotification: true,
      });
      const changed = { orderId, fulfillmentStatus: action };
      return { changed, data: { orderId, update: action } };
    }
    const { restocked } = await cancelOrder(deps, websiteId, orderId, { restock: true });
    return { changed: { orderId, fulfillmentStatus: action, restocked }, data: { orderId, update: action } };
  },
};

export const ORDER_TRIGGERS = {
  'order.create': orderCreate,
  'order.update': orderUpdate,
} satisfies Partial<Record<Topic, TopicTrigger>>;
