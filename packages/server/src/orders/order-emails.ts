import type { Db } from '../db/database.ts';
import type { EmailKind } from '../db/emails-schema.ts';
import { recordOrderEmail } from '../emails/outbox.ts';
import type { EmailNews } from '../emails/templates.ts';
import type { OrderRow } from './order-document.ts';
import type { OrderDeps } from './place-order.ts';

/**
 * The buyer's e-mail about a change of a stored order (its shipment, its cancellation, a refund), written
 * in the change's transaction (emails/outbox.ts). An order without a buyer's address gets none.
 * Returns whether an SMTP attempt was queued: the caller wakes the e-mail workers after its commit.
 */
export async function emailBuyer(
  trx: Db,
  deps: OrderDeps,
  order: OrderRow,
  kind: Exclude<EmailKind, 'order_confirmation'>,
  news: EmailNews = {},
): Promise<boolean> {
  if (!order.customer_email) return false;
  return recordOrderEmail(trx, deps, {
    websiteId: order.website_id,
    kind,
    orderId: order.id,
    to: order.customer_email,
    order: { ...order.document, orderNumber: order.order_number },
    news,
  });
}
