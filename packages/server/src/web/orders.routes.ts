import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { findOrder, placedOrders } from '../commerce/orders.read.ts';
import { fulfillOrder } from '../commerce/orders.service.ts';
import { DomainError } from '../errors.ts';
import { page, sendPage } from './layout.ts';
import { orderBody, ordersListBody, type FulfillForm } from './orders.views.ts';
import { ownedWebsite, ownerOf } from './owner.ts';
import { requireCsrf } from './session.ts';
import { field, type WebDeps } from './web-deps.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A query parameter given once; a repeated one counts as absent rather than guessed at. */
function param(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * /sites/:websiteId/orders: the site's orders for its owner, an order, and the fulfill form,
 * which goes through the same service as the API's fulfillments (so the same `order.update`).
 */
export const ordersRoutes: FastifyPluginAsync<{ deps: WebDeps }> = async (app, { deps }) => {
  app.get('/sites/:websiteId/orders', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const status = param(request, 'status');
    const before = param(request, 'before');
    const { orders, next } = await placedOrders(deps.commerce, site.id, {
      fulfillmentStatus: status,
      before,
    });
    const body = ordersListBody(site, { orders, status, next, paged: before !== '' });
    const context = { ...owner, csrf: request.browser.csrf };
    return sendPage(reply, 200, page(`Orders of ${site.title}`, body, context));
  });

  app.get('/sites/:websiteId/orders/:orderId', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    const csrf = request.browser.csrf;
    const form: FulfillForm = {
      carrierName: '',
      service: '',
      trackingNumber: '',
      trackingUrl: '',
      shipDate: deps.clock.now().toISOString().slice(0, 10),
    };
    const body = orderBody(site, order, { csrf, form, done: param(request, 'fulfilled') === '1' });
    return sendPage(reply, 200, page(`Order #${order.orderNumber}`, body, { ...owner, csrf }));
  });

  app.post('/sites/:websiteId/orders/:orderId/fulfillments', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    const form: FulfillForm = {
      carrierName: field(request.body, 'carrierName').trim(),
      service: field(request.body, 'service').trim(),
      trackingNumber: field(request.body, 'trackingNumber').trim(),
      trackingUrl: field(request.body, 'trackingUrl').trim(),
      shipDate: field(request.body, 'shipDate').trim(),
    };
    try {
      await fulfillOrder(deps.commerce, site.id, order.id, {
        shipments: [
          {
            carrierName: form.carrierName,
            service: form.service,
            trackingNumber: form.trackingNumber,
            trackingUrl: form.trackingUrl || null,
            // A date input gives the day; the shipment's time is that day's start in UTC.
            shipDate: DATE.test(form.shipDate) ? `${form.shipDate}T00:00:00Z` : form.shipDate,
          },
        ],
      });
      return reply.redirect(`/sites/${site.id}/orders/${order.id}?fulfilled=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      const csrf = request.browser.csrf;
      // The service names the API's field (shipments[0].service); the form has one shipment.
      const message = error.message.replace(/^shipments\[0\]\./, '');
      const body = orderBody(site, order, { csrf, form, error: message });
      return sendPage(reply, error.status, page(`Order #${order.orderNumber}`, body, { ...owner, csrf }));
    }
  });
};
