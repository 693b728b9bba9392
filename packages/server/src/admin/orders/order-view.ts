import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WebsitesTable } from '../../db/schema.ts';
import { findOrder } from '../../orders/orders.read.ts';
import { refundsView } from '../../orders/refundable.ts';
import { orderDownloads } from '../../orders/download-links.ts';
import { page, sendPage } from '../layout.ts';
import { ownerOf } from '../owner.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { blankFulfillForm, type FormError, type FulfillForm } from './order-actions.views.ts';
import { orderBody, type Done } from './order-page.views.ts';
import { blankRefundForm, type RefundForm } from './refund.views.ts';
import { selectOrderDocument } from '../../transactions/transactions.repo.ts';
import { lastFoursOf } from '../../giftcards/gift-cards.read.ts';
import { orderPayments } from './order-payments.views.ts';

/** What the order's page shows besides the order: the notice of a change, or a refused form's values. */
export interface OrderPageView {
  status: number;
  done?: Done;
  error?: FormError;
  form?: FulfillForm;
  restock?: boolean;
  email?: string;
  refund?: RefundForm;
}

/**
 * The order's page, as every one of its forms answers: the order and its refunds read now (a
 * refusal may come from a change made meanwhile), with the refused form's message and values.
 */
export async function sendOrderPage(
  deps: AdminDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  site: WebsitesTable,
  orderId: string,
  view: OrderPageView,
) {
  const owner = ownerOf(request);
  const csrf = request.browser.csrf;
  const [order, refunds, downloads, document] = await Promise.all([
    findOrder(deps.commerce, site.id, orderId),
    refundsView(deps.db, site.id, orderId),
    orderDownloads(deps.commerce, site.id, orderId),
    selectOrderDocument(deps.db, site.id, orderId),
  ]);
  const giftCardIds = (document?.document.payments ?? []).flatMap((p) =>
    p.giftCardId ? [p.giftCardId] : [],
  );
  const payments = orderPayments(document?.document, await lastFoursOf(deps.db, site.id, giftCardIds));
  const body = orderBody(site, order, {
    ...view,
    csrf,
    form: view.form ?? blankFulfillForm(deps.clock.now(site.id).toISOString().slice(0, 10)),
    restock: view.restock ?? order.stockTaken === true,
    refunds,
    refund: view.refund ?? blankRefundForm(),
    downloads,
    payments,
  });
  return sendPage(reply, view.status, page(`Order #${order.orderNumber}`, body, { ...owner, csrf }));
}
