import { changeProductsUnstamped } from '../catalog/product-changes.ts';
import type { CatalogDeps } from '../catalog/products.service.ts';
import { stampAndNumberOrder } from '../db/change-clock.ts';
import type { Db } from '../db/database.ts';
import { recordBuyerContact } from '../customers/buyer-contact.ts';
import { emit } from '../webhooks/outbox.ts';
import { orderColumns, orderDocument, orderRow, toOrder, type OrderJson } from './order-document.ts';
import type { LineItemType, PlacedOrder } from '../shared/order-model.ts';
import type { OrderCaches } from './order-caches.ts';
import type { EmailSettings } from '../emails/email-settings.ts';
import { recordOrderEmail } from '../emails/outbox.ts';
import * as repo from './orders.repo.ts';
import { transactionRow } from '../transactions/transactions.service.ts';
import type { IssuedGiftCard } from '../giftcards/gift-cards.service.ts';
import { emailedGiftCards, issueOrderGiftCards } from './gift-card-lines.ts';
import { catalogLine, selectLineVariants, takeStock } from './catalog-lines.ts';
import { digitalLine, selectDigitalProducts } from './download-lines.ts';
import { emailedDownloads, issueDownloadLinks, type IssuedLink } from './download-links.ts';

/**
 * Placing an order, whatever its channel (an import through the API, the CLI, the storefront):
 * its lines are looked up in the catalog, the stock taken when asked, the buyer's profile found
 * or made, the order numbered and written with its transaction document, and `order.create`
 * queued, all in the caller's transaction, so an order exists with all of it or not at all.
 */

export type OrderDeps = CatalogDeps & { orders: OrderCaches; baseUrl: string; emails: EmailSettings };

export interface DraftLine {
  lineItemType: LineItemType;
  /** A variant of the website: required for PHYSICAL_PRODUCT, null for CUSTOM and DIGITAL. */
  variantId: string | null;
  /** The product of a DIGITAL line, which has no variant (download-lines.ts). */
  productId?: string | null;
  /** The name of a CUSTOM line. */
  title: string | null;
  quantity: number;
  unitPricePaidMinor: number;
  customizations: { label: string; value: string }[] | null;
  /** This line's share of the merchandise discount (OrderLine.discountMinor). */
  discountMinor?: number;
}

/** An order before it is placed: what the channel says, the catalog and the numbers not yet. */
export type OrderDraft = Omit<
  PlacedOrder,
  'id' | 'websiteId' | 'currency' | 'orderNumber' | 'customerId' | 'lineItems' | 'createdOn'
> & {
  /** As an import sent it; null: the ISO form of placedOn. */
  createdOn: string | null;
  lines: DraftLine[];
  /** Take the lines from stock, refusing the whole order when a variant has too few. */
  deductStock: boolean;
};

/**
 * The buyer's order confirmation (emails/), for an order of the store itself (channel `web`: its
 * checkout, the order.create trigger, sample orders) with a buyer's address; written in the
 * placing transaction. An order imported through the API was taken on another channel, which
 * confirmed it: the platform sends none for an import.
 */
async function confirm(
  trx: Db,
  deps: OrderDeps,
  order: PlacedOrder,
  giftCards: IssuedGiftCard[],
  downloads: IssuedLink[] = [],
): Promise<boolean> {
  if (order.channel !== 'web' || !order.customerEmail) return false;
  return recordOrderEmail(trx, deps, {
    websiteId: order.websiteId,
    kind: 'order_confirmation',
    orderId: order.id,
    to: order.customerEmail,
    order: { ...orderDocument(order), orderNumber: order.orderNumber },
    // The gift cards' codes: this e-mail is kept sealed (emails/sealed.ts).
    news: {
      ...(giftCards.length && { giftCards: emailedGiftCards(giftCards, order.currency) }),
      // One signed link a download line (download-links.ts): the e-mail is sealed as for codes.
      ...(downloads.length && { downloads: emailedDownloads(downloads) }),
    },
  });
}

export interface Placed {
  order: PlacedOrder;
  /** The Order object as sent, stamped. */
  json: OrderJson;
  /** The gift cards it bought, with their codes: for the buyer's eyes only, never stored. */
  giftCards: IssuedGiftCard[];
  /** Call once the transaction has committed. */
  announce: () => void;
}

/** What a channel does in the placing transaction, at its two moments. */
export interface OrderHooks {
  /**
   * Runs once the order's own rows are written, before its stock is taken: what is kept with the
   * order (an idempotency key, a discount's redemption, a gift card's spending).
   */
  written?: (orderId: string) => Promise<void>;
  /**
   * Runs once the order is numbered and stamped, under the website's number and clock: a check
   * that counts the website's orders there is exact, and a refusal from it places nothing.
   */
  numbered?: (orderId: string) => Promise<void>;
}

/**
 * Places the draft in the caller's transaction, whose last work this is (the changes are stamped
 * here: db/change-clock.ts). Every order of a website waits for the locks taken last, so they
 * come in this order, as late as they can: first the order's own rows (its buyer's profile, the
 * order unnumbered, its transaction document, `order.create`, the channel's `written` work), then
 * its products' and variants' locks to take the stock, then in one statement the website's order
 * number and change clock, the products', the order's and the document's stamps; what needs the
 * number (the channel's `numbered` check, gift cards, download links, the confirmation) comes
 * after it, the website held meanwhile. The locks of other changes come in the same order
 * (cancel-order.ts, refund-order.ts), so none deadlocks with an order being placed.
 */
export async function placeOrder(
  trx: Db,
  deps: OrderDeps,
  website: { id: string; currency: string },
  draft: OrderDraft,
  hooks: OrderHooks = {},
): Promise<Placed> {
  const { lines: draftLines, deductStock, ...rest } = draft;
  const variants = await selectLineVariants(trx, website.id, draftLines);
  const downloads = await selectDigitalProducts(trx, website.id, draftLines);
  const lines = draftLines.map((line, i) =>
    line.lineItemType === 'DIGITAL'
      ? digitalLine(deps.baseUrl, line, `lineItems[${i}]`, downloads)
      : catalogLine(deps, line, `lineItems[${i}]`, variants),
  );
  const takesStock = deductStock && lines.some((l) => l.variantId);

  // The buyer is a contact too (customers/buyer-contact.ts), with its webhooks.
  const buyer = rest.customerEmail
    ? await recordBuyerContact(
        trx,
        deps,
        website.id,
        {
          email: rest.customerEmail,
          firstName: rest.billingAddress?.firstName ?? rest.shippingAddress?.firstName ?? null,
          lastName: rest.billingAddress?.lastName ?? rest.shippingAddress?.lastName ?? null,
          address: rest.billingAddress ?? rest.shippingAddress,
          orderTotalMinor: rest.grandTotalMinor,
          placedOn: rest.placedOn,
        },
        rest.shippingAddress,
      )
    : null;
  const unnumbered: PlacedOrder = {
    ...rest,
    id: deps.ids.objectId(),
    websiteId: website.id,
    currency: website.currency,
    orderNumber: 0,
    createdOn: rest.createdOn ?? rest.placedOn.toISOString(),
    customerId: buyer?.id ?? null,
    lineItems: lines.map((line) => ({ ...line, id: deps.ids.objectId() })),
  };
  const document = transactionRow(deps, unnumbered);
  await repo.insertOrder(trx, orderRow(unnumbered, takesStock), document);
  const notified =
    (buyer?.notified ?? 0) +
    (await emit(trx, deps, {
      websiteId: website.id,
      topic: 'order.create',
      data: { orderId: unnumbered.id },
    }));
  await hooks.written?.(unnumbered.id);

  const products = takesStock
    ? (
        await changeProductsUnstamped(
          trx,
          deps,
          website.id,
          lines.flatMap((l) => (l.productId ? [l.productId] : [])),
          async () => ({ changed: await takeStock(trx, website.id, lines), result: undefined }),
        )
      ).products
    : undefined;

  const {
    stamps: [productStamps, orderStamps],
    orderNumber,
  } = await stampAndNumberOrder(
    trx,
    deps.clock,
    website.id,
    [
      products?.part ?? { table: 'products', ids: [] },
      { table: 'orders', ids: [unnumbered.id] },
      { table: 'transaction_documents', ids: [document.id], columns: ['created_on', 'modified_on'] },
    ],
    unnumbered.id,
  );
  const order = { ...unnumbered, orderNumber };
  await hooks.numbered?.(order.id);
  // A paid order's gift cards are issued with it, one a unit (gift-card-lines.ts).
  const giftCards = order.paymentState === 'PAID' ? await issueOrderGiftCards(trx, deps, order) : [];
  const links = order.paymentState === 'PAID' ? await issueDownloadLinks(trx, deps, order) : [];
  const emailed = await confirm(trx, deps, order, giftCards, links);

  const announceProducts = products?.stamped(productStamps!) ?? (() => {});
  const json = toOrder({
    ...orderColumns(order),
    fulfillments: order.fulfillments,
    modified_on: orderStamps![0]!,
    document: orderDocument(order),
    stock_taken: takesStock,
  });
  return {
    order,
    json,
    giftCards,
    announce: () => {
      announceProducts();
      if (notified) deps.jobs.wakeDeliveryWorkers();
      if (emailed) deps.jobs.wakeEmailWorkers();
      deps.orders.lists.changed(website.id);
    },
  };
}
