import { cancelOrder } from '../orders/cancel-order.ts';
import { changeOrderEmail } from '../orders/change-email.ts';
import { markOrderPending } from '../orders/mark-pending.ts';
import { createOrder, fulfillOrder } from '../orders/orders.service.ts';
import { LIMITS } from '../orders/orders.schemas.ts';
import { refundOrder } from '../orders/refund-order.ts';
import { refundsView } from '../orders/refundable.ts';
import { paidWebOrder } from '../orders/web-order.ts';
import { parseEmail } from '../shared/email.ts';
import { NotFound, ValidationError } from '../shared/errors.ts';
import { fromMinorUnits } from '../shared/money.ts';
import { OBJECT_ID } from '../shared/ids.ts';
import { findWebsite } from '../sites/websites.repo.ts';
import { madeUpEmail, madeUpPerson, orderAddress } from './made-up-people.ts';
import type { Topic } from '../webhooks/topics.ts';
import type { Changed, TopicTrigger, TriggerDeps, TriggerOptions } from './trigger-kinds.ts';
import * as repo from './triggers.repo.ts';

/**
 * Orders as a shopper and the owner make them: a paid storefront order that takes stock, as the
 * checkout places one (orders/web-order.ts), and each change of the owner's order page that sends
 * `order.update`: fulfil, cancel, refund, mark pending, change the buyer's e-mail.
 */

/** The `update` values of order.update the platform sends, each made by its owner's change. */
export const ORDER_UPDATE_ACTIONS = [
  'FULFILLED',
  'CANCELED',
  'REFUNDED',
  'MARKED_PENDING',
  'EMAIL_UPDATED',
] as const;
type Action = (typeof ORDER_UPDATE_ACTIONS)[number];

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

/** The order named, in its states, or a 404 (an id that is no order id is none). */
async function namedOrder(deps: TriggerDeps, websiteId: string, orderId: string) {
  const id = orderId.toLowerCase();
  const states = OBJECT_ID.test(id) ? await repo.orderStates(deps.db, websiteId, id) : undefined;
  if (!states) throw new NotFound(`order not found: ${orderId}`);
  return { id, ...states };
}

/** The order named, which must be PENDING, or the newest PENDING one. */
async function pendingOrder(
  deps: TriggerDeps,
  websiteId: string,
  orderId: string | undefined,
): Promise<string> {
  if (orderId === undefined) {
    const newest = await repo.newestOrder(deps.db, websiteId, 'PENDING');
    if (!newest) {
      throw new ValidationError(
        `website ${websiteId} has no PENDING order to fulfil or cancel: trigger order.create first`,
      );
    }
    return newest;
  }
  const { id, fulfillment_status: status } = await namedOrder(deps, websiteId, orderId);
  if (status !== 'PENDING') {
    throw new ValidationError(`order ${id} is ${status}: only a PENDING order can be fulfilled or canceled`);
  }
  return id;
}

/** The order named, which must be FULFILLED, or the newest FULFILLED one. */
async function fulfilledOrder(
  deps: TriggerDeps,
  websiteId: string,
  orderId: string | undefined,
): Promise<string> {
  if (orderId === undefined) {
    const newest = await repo.newestOrder(deps.db, websiteId, 'FULFILLED');
    if (!newest) {
      throw new ValidationError(
        `website ${websiteId} has no FULFILLED order to mark pending: trigger order.update (FULFILLED) first`,
      );
    }
    return newest;
  }
  const { id, fulfillment_status: status } = await namedOrder(deps, websiteId, orderId);
  if (status !== 'FULFILLED') {
    throw new ValidationError(`order ${id} is ${status}: only a FULFILLED order can be marked pending`);
  }
  return id;
}

/** The order named, which must be PAID, or the newest PAID one whose payment the store took. */
async function paidOrder(deps: TriggerDeps, websiteId: string, orderId: string | undefined): Promise<string> {
  if (orderId === undefined) {
    const newest = await repo.newestPaidOrder(deps.db, websiteId);
    if (!newest) {
      throw new ValidationError(
        `website ${websiteId} has no PAID order whose payment the store took, to refund: trigger order.create first`,
      );
    }
    return newest;
  }
  const { id, payment_state: state } = await namedOrder(deps, websiteId, orderId);
  if (state !== 'PAID') {
    throw new ValidationError(`order ${id} is ${state}, not PAID: only a paid order can be refunded`);
  }
  return id;
}

/** The order named, whatever its state, or the newest one. */
async function anyOrder(deps: TriggerDeps, websiteId: string, orderId: string | undefined): Promise<string> {
  if (orderId !== undefined) return (await namedOrder(deps, websiteId, orderId)).id;
  const newest = await repo.newestOrder(deps.db, websiteId);
  if (!newest) throw new ValidationError(`website ${websiteId} has no order: trigger order.create first`);
  return newest;
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

type Update = (deps: TriggerDeps, websiteId: string, options: TriggerOptions) => Promise<Changed>;

const UPDATES: Record<Action, Update> = {
  async FULFILLED(deps, websiteId, options) {
    const orderId = await pendingOrder(deps, websiteId, options.orderId);
    // As the owner's fulfil form does by default: the buyer is e-mailed a shipping notice.
    await fulfillOrder(deps, websiteId, orderId, {
      shipments: [shipment(deps, websiteId)],
      shouldSendNotification: true,
    });
    return { orderId, fulfillmentStatus: 'FULFILLED' };
  },

  async CANCELED(deps, websiteId, options) {
    const orderId = await pendingOrder(deps, websiteId, options.orderId);
    const { restocked } = await cancelOrder(deps, websiteId, orderId, { restock: true });
    return { orderId, fulfillmentStatus: 'CANCELED', restocked };
  },

  /**
   * Everything left to refund, as the owner's "Refund everything left" does: the items back in
   * stock when the order page offers it (not for a canceled order, nor one that took no stock).
   */
  async REFUNDED(deps, websiteId, options) {
    const orderId = await paidOrder(deps, websiteId, options.orderId);
    const view = await refundsView(deps.db, websiteId, orderId);
    // A PAID order from another channel: the store took no payment (the message says so).
    if (!view.left) throw new ValidationError(view.why ?? `order ${orderId} has nothing left to refund`);
    const refunded = await refundOrder(deps, websiteId, orderId, {
      full: true,
      restock: view.restockable,
      lines: [],
      shipping: false,
      otherMinor: 0,
    });
    return {
      orderId,
      refundId: refunded.refundId,
      refunded: fromMinorUnits(refunded.amountMinor, view.left.amount.currency).value,
      currency: view.left.amount.currency,
      paymentState: refunded.paymentState,
      restocked: refunded.restocked,
    };
  },

  async MARKED_PENDING(deps, websiteId, options) {
    const orderId = await fulfilledOrder(deps, websiteId, options.orderId);
    await markOrderPending(deps, websiteId, orderId);
    return { orderId, fulfillmentStatus: 'PENDING' };
  },

  async EMAIL_UPDATED(deps, websiteId, options) {
    const email =
      options.email === undefined
        ? madeUpEmail(madeUpPerson(deps.ids), deps.ids)
        : parseEmail(options.email, 'email');
    const orderId = await anyOrder(deps, websiteId, options.orderId);
    try {
      await changeOrderEmail(deps, websiteId, orderId, email);
    } catch (error) {
      // The service names the order's field; the trigger's option is `email`.
      if (!(error instanceof ValidationError) || !error.message.startsWith('customerEmail:')) throw error;
      throw new ValidationError(error.message.replace(/^customerEmail:/, 'email:'));
    }
    return { orderId, customerEmail: email };
  },
};

const isAction = (action: string): action is Action =>
  (ORDER_UPDATE_ACTIONS as readonly string[]).includes(action);

const orderUpdate: TopicTrigger = {
  options: ['orderId', 'action', 'email'],
  async run(deps, websiteId, options) {
    const action = options.action ?? 'FULFILLED';
    if (!isAction(action)) {
      throw new ValidationError(`action: one of ${ORDER_UPDATE_ACTIONS.join(', ')}, not "${action}"`);
    }
    if (options.email !== undefined && action !== 'EMAIL_UPDATED') {
      throw new ValidationError(
        `email: order.update takes an e-mail only with the action EMAIL_UPDATED (the buyer's new address), not ${action}`,
      );
    }
    const changed = await UPDATES[action](deps, websiteId, options);
    return { changed, data: { orderId: changed.orderId, update: action } };
  },
};

export const ORDER_TRIGGERS = {
  'order.create': orderCreate,
  'order.update': orderUpdate,
} satisfies Partial<Record<Topic, TopicTrigger>>;
