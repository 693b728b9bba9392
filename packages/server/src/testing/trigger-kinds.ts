import type { ImageStorage } from '../media/storage.ts';
import type { TokenDeps } from '../oauth/tokens.ts';
import type { OrderDeps } from '../orders/place-order.ts';

/** What triggers are given: the services' dependencies, as a CLI command or the HTTP app has them. */
export type TriggerDeps = OrderDeps &
  Pick<TokenDeps, 'tokens'> & {
    /** Where a deleted product's image files are removed from: the service's storage. */
    storage: ImageStorage;
  };

/** The options a topic may take, each named as the CLI's flag is (`--order` is `orderId`). */
export interface TriggerOptions {
  /** order.create: the variant sold; product.create: the new variant's SKU. */
  sku?: string;
  /** order.create: how many (1 by default). */
  quantity?: number;
  /**
   * order.create, contact.create: the buyer's or contact's e-mail; order.update EMAIL_UPDATED: the
   * order's new one (a made-up one by default).
   */
  email?: string;
  /**
   * order.update: the order (by default the newest one the action can change: PENDING to fulfil
   * or cancel, PAID to refund, FULFILLED to mark pending, any to change its e-mail).
   */
  orderId?: string;
  /** order.update: what happens to it, as the notification's `update` says (testing/trigger-orders.ts). */
  action?: string;
  /** extension.uninstall: the app (the only one connected by default). */
  clientId?: string;
  /** contact.update, contact.delete, address.*: the contact (the newest by default). */
  contactId?: string;
  /** address.update, address.delete: the address book entry (the newest by default). */
  addressId?: string;
  /** product.update, product.delete: the product (the newest by default). */
  productId?: string;
  /** product.create, product.update: the product's (new) name. */
  name?: string;
}

export type OptionName = keyof TriggerOptions;

/** What a trigger changed: the ids an app's follow-up calls ask for. */
export type Changed = Record<string, string | number | boolean>;

/** A topic's trigger: the options it takes, and the change, returning its ids and notification data. */
export interface TopicTrigger {
  options: readonly OptionName[];
  run(
    deps: TriggerDeps,
    websiteId: string,
    options: TriggerOptions,
  ): Promise<{
    changed: Changed;
    /** Fields the notification's `data` holds, which tell this change's notifications from others. */
    data: object;
  }>;
}
