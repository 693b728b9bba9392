import { ValidationError } from '../shared/errors.ts';
import { emailedDownloads, freshDownloadLink } from './download-links.ts';
import { lockForChange } from './order-lock.ts';
import { recordOrderEmail } from '../emails/outbox.ts';
import { checkOrderId } from './orders.read.ts';
import type { OrderDeps } from './place-order.ts';

/**
 * The owner's "Send fresh download links": a new link for each DIGITAL line of a paid order (a
 * new day, a new count; the old links keep what they had), e-mailed to the buyer as the order's
 * confirmation again, sealed as the first was. The order itself does not change: no modifiedOn,
 * no webhook. Refused for an order not paid, canceled, without downloads or without an e-mail.
 */
export async function sendFreshDownloadLinks(
  deps: OrderDeps,
  websiteId: string,
  orderId: string,
): Promise<number> {
  checkOrderId(orderId);
  const { count, emailed } = await deps.db.transaction().execute(async (trx) => {
    const order = await lockForChange(trx, websiteId, orderId);
    const lines = order.document.lineItems.filter((l) => l.lineItemType === 'DIGITAL');
    if (lines.length === 0) throw new ValidationError('This order has no downloads.');
    if (order.payment_state !== 'PAID' || order.fulfillment_status === 'CANCELED') {
      throw new ValidationError(
        'This order was refunded or canceled: its downloads are no longer available.',
      );
    }
    if (!order.customer_email)
      throw new ValidationError('This order has no e-mail address to send the links to.');
    const links = [];
    for (const line of lines) {
      links.push(await freshDownloadLink(trx, deps, { id: order.id, websiteId }, line));
    }
    const emailed = await recordOrderEmail(trx, deps, {
      websiteId,
      kind: 'order_confirmation',
      orderId: order.id,
      to: order.customer_email,
      order: { ...order.document, orderNumber: order.order_number },
      news: { downloads: emailedDownloads(links) },
    });
    return { count: links.length, emailed };
  });
  if (emailed) deps.jobs.wakeEmailWorkers();
  return count;
}
