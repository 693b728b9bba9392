import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { cancelOrder } from '../../orders/cancel-order.ts';
import { findOrder, placedOrders } from '../../orders/orders.read.ts';
import { fulfillOrder } from '../../orders/orders.service.ts';
import { DomainError, ValidationError } from '../../shared/errors.ts';
import { page, sendPage } from '../layout.ts';
import type { FulfillForm } from './order-actions.views.ts';
import type { Done } from './order-page.views.ts';
import { sendOrderPage } from './order-view.ts';
import { ordersListBody, type ListFilters } from './orders.views.ts';
import { ownedWebsite } from '../../sites/websites.service.ts';
import { ownerOf } from '../owner.ts';
import { requireCsrf } from '../session.ts';
import type { AdminDeps } from '../admin-deps.ts';
import { field } from '../../pages/forms.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DONE: Done[] = ['fulfilled', 'canceled', 'restocked', 'refunded', 'pending', 'email', 'links'];

/** A query parameter given once; a repeated one counts as absent rather than guessed at. */
function param(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/**
 * /sites/:websiteId/orders: the site's orders for its owner, an order, and its fulfill and cancel
 * forms, which go through the services the API's fulfillments use (so the same `order.update`).
 */
export const adminOrdersRoutes: FastifyPluginAsync<{ deps: AdminDeps }> = async (app, { deps }) => {
  app.get('/sites/:websiteId/orders', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId } = request.params as { websiteId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const filters: ListFilters = {
      // `pending` is taken for `PENDING`: the statuses are the API's words, typed by hand too.
      fulfillmentStatus: param(request, 'status').toUpperCase(),
      from: param(request, 'from'),
      to: param(request, 'to'),
      search: param(request, 'q'),
    };
    const before = param(request, 'before');
    const context = { ...owner, csrf: request.browser.csrf, wide: true };
    const title = `Orders of ${site.title}`;
    try {
      const { orders, next } = await placedOrders(deps.commerce, site, { ...filters, before });
      const body = ordersListBody(site, { orders, filters, next, paged: before !== '' });
      return await sendPage(reply, 200, page(title, body, context));
    } catch (error) {
      // A filter the service refuses: the form again, with its message and the values sent.
      if (!(error instanceof ValidationError)) throw error;
      const body = ordersListBody(site, {
        orders: [],
        filters,
        next: null,
        paged: false,
        error: error.message,
      });
      return sendPage(reply, 400, page(title, body, context));
    }
  });

  app.get('/sites/:websiteId/orders/:orderId', async (request, reply) => {
    const owner = ownerOf(request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const done = DONE.find((d) => param(request, d) === '1');
    return sendOrderPage(deps, request, reply, site, orderId, { status: 200, done });
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
      notify: field(request.body, 'notify') === '1',
    };
    try {
      await fulfillOrder(deps.commerce, site.id, order.id, {
        shouldSendNotification: form.notify,
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
      return await reply.redirect(`/sites/${site.id}/orders/${order.id}?fulfilled=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      // The service names the API's field (shipments[0].service); the form has one shipment.
      const message = error.message.replace(/^shipments\[0\]\./, '');
      return sendOrderPage(deps, request, reply, site, order.id, {
        status: error.status,
        form,
        error: { form: 'fulfill', message },
      });
    }
  });

  app.post('/sites/:websiteId/orders/:orderId/cancel', async (request, reply) => {
    const owner = ownerOf(request);
    requireCsrf(deps, request);
    const { websiteId, orderId } = request.params as { websiteId: string; orderId: string };
    const site = await ownedWebsite(deps.db, owner.id, websiteId);
    const order = await findOrder(deps.commerce, site.id, orderId);
    // An unticked checkbox sends nothing: no `restock` is the owner's "do not restock".
    const restock = field(request.body, 'restock') === '1';
    const refund = field(request.body, 'refund') === '1';
    try {
      if (field(request.body, 'confirm') !== 'yes') {
        throw new ValidationError('Tick "Yes, cancel order" to confirm; nothing was changed.');
      }
      const { restocked } = await cancelOrder(deps.commerce, site.id, order.id, { restock, refund });
      const done: Done = restocked > 0 ? 'restocked' : 'canceled';
      return await reply.redirect(`/sites/${site.id}/orders/${order.id}?${done}=1`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status === 404) throw error;
      return sendOrderPage(deps, request, reply, site, order.id, {
        status: error.status,
        restock,
        error: { form: 'cancel', message: error.message },
      });
    }
  });
};
