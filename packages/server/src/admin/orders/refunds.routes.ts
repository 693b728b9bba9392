import type { FastifyPluginAsync } from 'fastify';
import { findOrder } from '../../orders/orders.read.ts';
import { refundOrder, type RefundInput } from '../../orders/refund-order.ts';
import { DomainError } from '../../shared/errors.ts';
import { toMinorUnits } from '../../shared/money.ts';
import { field, type Form } from '../../pages/forms.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { sendOrderPage } from './order-view.ts';
import type { RefundForm } from './refund.views.ts';

const QUANTITY = /^\d{1,6}$/;

/** The refund form as sent: `qty_<lineId>` per line, `shipping`, `amount`, `restock`. */
function refundForm(body: unknown, lineIds: string[]): RefundForm {
  const quantities: Record<string, number> = {};
  for (const id of lineIds) {
    const text = field(body, `qty_${id}`).trim();
    // An empty or unreadable box asks for none; the service refuses more than is left.
    quantities[id] = QUANTITY.test(text) ? Number(text) : 0;
  }
  return {
    quantities,
    shipping: field(body, 'shipping') === '1',
    amount: field(body, 'amount').trim(),
    restock: field(body, 'restock') === '1',
  };
}

/**
 * POST /sites/:websiteId/orders/:orderId/refunds: the order page's refund forms (a part refund,
 * or `full=1` for everything left), through orders/refund-order.ts. A refund redirects to the
 * order's page with its notice; a refusal shows the page again with the message and the values.
 */
export const adminRefundsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.post('/sites/:websiteId/orders/:orderId/refunds', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    const form = refundForm(
      request.body as Form,
      order.lineItems.map((l) => l.id),
    );
    try {
      const input: RefundInput = {
        full: field(request.body, 'full') === '1',
        restock: form.restock,
        lines: Object.entries(form.quantities).map(([lineId, quantity]) => ({ lineId, quantity })),
        shipping: form.shipping,
        otherMinor: form.amount
          ? toMinorUnits({ currency: site.currency, value: form.amount }, site.currency, 'amount')
          : 0,
      };
      await refundOrder(deps.commerce, site.id, order.id, input);
      return await reply.redirect(`/sites/${site.id}/orders/${order.id}?refunded=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      // `amount.value: ...` names the API's field; the form's box is "Another amount".
      const message = error.message.replace(/^amount\.value:/, 'Another amount:');
      return sendOrderPage(deps, request, reply, site, order.id, {
        status: error.status,
        refund: form,
        error: { form: 'refund', message },
      });
    }
  });
};
