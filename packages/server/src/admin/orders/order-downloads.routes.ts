import type { FastifyPluginAsync } from 'fastify';
import { sendFreshDownloadLinks } from '../../orders/fresh-download-links.ts';
import { DomainError } from '../../shared/errors.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { sendOrderPage } from './order-view.ts';

/** The order page's "E-mail the buyer fresh download links" (orders/fresh-download-links.ts). */
export const adminOrderDownloadsRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.post('/sites/:websiteId/orders/:orderId/download-links', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    try {
      await sendFreshDownloadLinks(deps.commerce, site.id, orderId);
      return await reply.redirect(`/sites/${site.id}/orders/${orderId}?links=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      return sendOrderPage(deps, request, reply, site, orderId, {
        status: error.status,
        error: { form: 'downloads', message: error.message },
      });
    }
  });
};
