import { fromMinorUnits } from '../shared/money.ts';
import type { Insertable, Selectable } from 'kysely';
import type { OrdersTable } from '../db/schema.ts';
import type { OrderLine, PlacedOrder } from '../shared/order-model.ts';

/**
 * The Order object of platform-surface 2.1.4, every field always present and in the order real
 * responses have them. What never changes once an order is placed is rendered once, into the
 * `document` column (orderDocument); the rest comes from the row's columns (toOrder).
 */

function lineItem(line: OrderLine, currency: string) {
  return {
    id: line.id,
    variantId: line.variantId,
    sku: line.sku,
    weight: line.weight,
    width: line.width,
    length: line.length,
    height: line.height,
    productId: line.productId,
    productName: line.productName,
    quantity: line.quantity,
    unitPricePaid: fromMinorUnits(line.unitPricePaidMinor, currency),
    variantOptions: line.variantOptions,
    customizations: line.customizations,
    imageUrl: line.imageUrl,
    lineItemType: line.lineItemType,
  };
}

/** What the `document` column holds: the order's fields that never change, as sent. */
export function orderDocument(order: PlacedOrder) {
  const money = (minor: number) => fromMinorUnits(minor, order.currency);
  return {
    createdOn: order.createdOn,
    testmode: order.testmode,
    billingAddress: order.billingAddress,
    shippingAddress: order.shippingAddress,
    lineItems: order.lineItems.map((line) => lineItem(line, order.currency)),
    internalNotes: order.internalNotes,
    shippingLines: order.shippingLines.map((s) => ({ method: s.method, amount: money(s.amountMinor) })),
    // `description` is the deprecated twin of `name` (platform-surface 2.1.4).
    discountLines: order.discountLines.map((d) => ({
      description: d.name,
      name: d.name,
      amount: money(d.amountMinor),
      promoCode: d.promoCode,
    })),
    formSubmission: order.formSubmission,
    subtotal: money(order.subtotalMinor),
    shippingTotal: money(order.shippingTotalMinor),
    discountTotal: money(order.discountTotalMinor),
    taxTotal: money(order.taxTotalMinor),
    refundedTotal: money(order.refundedTotalMinor),
    grandTotal: money(order.grandTotalMinor),
    channelName: order.channelName,
    externalOrderReference: order.externalOrderReference,
    priceTaxInterpretation: order.priceTaxInterpretation,
    shippingOptionName: order.shippingOptionName,
    shippingOptionServiceType: order.shippingOptionServiceType,
  };
}

export type OrderDocument = ReturnType<typeof orderDocument>;
export type OrderRow = Selectable<Omit<OrdersTable, 'document'>> & { document: OrderDocument };

type OrderColumns = Omit<OrderRow, 'fulfillments' | 'document' | 'stock_taken'>;

/**
 * The columns of a newly placed order. Its modifiedOn is stamped last (db/change-clock.ts); until
 * then it is the epoch, which no reader sees and which cannot move a new website's clock.
 */
export function orderColumns(order: PlacedOrder): OrderColumns {
  return {
    id: order.id,
    website_id: order.websiteId,
    order_number: order.orderNumber,
    channel: order.channel,
    customer_id: order.customerId,
    customer_email: order.customerEmail,
    fulfillment_status: order.fulfillmentStatus,
    fulfilled_on: order.fulfilledOn,
    payment_state: order.paymentState,
    grand_total_minor: order.grandTotalMinor,
    refunded_total_minor: order.refundedTotalMinor,
    placed_on: order.placedOn,
    modified_on: new Date(0),
  };
}

/**
 * The row to insert, its JSON columns as text; numbered later (change-clock.ts stampAndNumberOrder).
 * `stockTaken`: whether placing it took its lines from stock.
 */
export function orderRow(order: PlacedOrder, stockTaken: boolean): Insertable<OrdersTable> {
  return {
    ...orderColumns(order),
    stock_taken: stockTaken,
    order_number: null,
    fulfillments: JSON.stringify(order.fulfillments),
    document: JSON.stringify(orderDocument(order)),
  };
}

/** The Order object as sent. */
export function toOrder(row: OrderRow) {
  const d = row.document;
  return {
    id: row.id,
    orderNumber: String(row.order_number),
    createdOn: d.createdOn,
    modifiedOn: row.modified_on.toISOString(),
    channel: row.channel,
    testmode: d.testmode,
    customerEmail: row.customer_email,
    customerId: row.customer_id,
    billingAddress: d.billingAddress,
    shippingAddress: d.shippingAddress,
    fulfillmentStatus: row.fulfillment_status,
    lineItems: d.lineItems,
    internalNotes: d.internalNotes,
    shippingLines: d.shippingLines,
    discountLines: d.discountLines,
    formSubmission: d.formSubmission,
    fulfillments: row.fulfillments,
    subtotal: d.subtotal,
    shippingTotal: d.shippingTotal,
    discountTotal: d.discountTotal,
    taxTotal: d.taxTotal,
    refundedTotal: d.refundedTotal,
    grandTotal: d.grandTotal,
    channelName: d.channelName,
    externalOrderReference: d.externalOrderReference,
    fulfilledOn: row.fulfilled_on?.toISOString() ?? null,
    priceTaxInterpretation: d.priceTaxInterpretation,
    paymentState: row.payment_state,
    shippingOptionName: d.shippingOptionName,
    shippingOptionServiceType: d.shippingOptionServiceType,
  };
}

export type OrderJson = ReturnType<typeof toOrder>;
