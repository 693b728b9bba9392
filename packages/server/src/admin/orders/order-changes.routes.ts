import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { changeOrderEmail } from '../../orders/change-email.ts';
import { markOrderPending } from '../../orders/mark-pending.ts';
import { findOrder } from '../../orders/orders.read.ts';
import type { WebsitesTable } from '../../db/schema.ts';
import { DomainError, ValidationError } from '../../shared/errors.ts';
import { field } from '../../pages/forms.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import type { AdminDeps } from '../admin-deps.ts';
import type { FormError } from './order-actions.views.ts';
import { sendOrderPage } from './order-view.ts';

/**
 * The order page's forms that change an order besides shipping and canceling it: "Mark as
 * pending" and the buyer's e-mail (orders/mark-pending.ts, orders/change-email.ts). A change
 * redirects to the order's page with its notice; a refusal shows the page again, with the
 * message beside the form and the order as it is now.
 */
export const adminOrderChangesRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  /** The order's page, answering `error` of `form`; the e-mail form keeps the address sent. */
  const refused = (
    request: FastifyRequest,
    reply: FastifyReply,
    site: WebsitesTable,
    orderId: string,
    error: FormError & { status: number; email?: string },
  ) =>
    sendOrderPage(deps, request, reply, site, orderId, {
      status: error.status,
      error: { form: error.form, message: error.message },
      email: error.email,
    });

  app.post('/sites/:websiteId/orders/:orderId/mark-pending', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    try {
      if (field(request.body, 'confirmPending') !== 'yes') {
        throw new ValidationError(
          `Tick "Yes, mark order #${order.orderNumber} as pending" to confirm; nothing was changed.`,
        );
      }
      await markOrderPending(deps.commerce, site.id, order.id);
      return await reply.redirect(`/sites/${site.id}/orders/${order.id}?pending=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      return refused(request, reply, site, order.id, {
        form: 'pending',
        status: error.status,
        message: error.message,
      });
    }
  });

  app.post('/sites/:websiteId/orders/:orderId/email', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    const email = field(request.body, 'email');
    try {
      await changeOrderEmail(deps.commerce, site.id, order.id, email);
      return await reply.redirect(`/sites/${site.id}/orders/${order.id}?email=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      // The service names the API's field; the form labels it "E-mail address".
      const message = error.message.replace(/^customerEmail:/, 'E-mail address:');
      return refused(request, reply, site, order.id, { form: 'email', status: error.status, message, email });
    }
  });
};
